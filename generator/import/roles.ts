/**
 * Recognising the Python tokenizer steps of known templates (TensorRT-LLM inflight_batcher_llm,
 * FasterTransformer, BERT-style encoders) by their tensor names, so they can become native steps.
 */
import type { PortRole, StepKind } from '../pipeline/types.js';

const TOKENIZE_INPUTS: Record<string, PortRole> = {
  QUERY: 'text',
  TEXT: 'text',
  text_input: 'text',
  REQUEST_OUTPUT_LEN: 'requestOutputLen',
  BAD_WORDS_DICT: 'badWords',
  STOP_WORDS_DICT: 'stopWords',
  END_ID: 'endId',
  PAD_ID: 'padId',
  EMBEDDING_BIAS_WORDS: 'embeddingBiasWords',
  EMBEDDING_BIAS_WEIGHTS: 'embeddingBiasWeights',
};
const TOKENIZE_OUTPUTS: Record<string, PortRole> = {
  INPUT_ID: 'inputIds',
  input_ids: 'inputIds',
  REQUEST_INPUT_LEN: 'inputLength',
  REQUEST_OUTPUT_LEN: 'requestOutputLen',
  BAD_WORDS_IDS: 'badWordsIds',
  STOP_WORDS_IDS: 'stopWordsIds',
  OUT_END_ID: 'endId',
  OUT_PAD_ID: 'padId',
  EMBEDDING_BIAS: 'embeddingBias',
  attention_mask: 'attentionMask',
};
const DETOKENIZE_INPUTS: Record<string, PortRole> = {
  TOKENS_BATCH: 'tokens',
  SEQUENCE_LENGTH: 'sequenceLength',
};
const DETOKENIZE_OUTPUTS: Record<string, PortRole> = { OUTPUT: 'text', text_output: 'text' };

export function roleTables(kind: 'tokenize' | 'detokenize'): {
  inputs: Record<string, PortRole>;
  outputs: Record<string, PortRole>;
} {
  return kind === 'tokenize'
    ? { inputs: TOKENIZE_INPUTS, outputs: TOKENIZE_OUTPUTS }
    : { inputs: DETOKENIZE_INPUTS, outputs: DETOKENIZE_OUTPUTS };
}

/** tokenize: text in, integer ids out; detokenize: integer ids in, text out. */
export function tokenizerStepKind(
  inputs: { dataType: string }[],
  outputs: { dataType: string }[],
): Extract<StepKind, 'tokenize' | 'detokenize'> | undefined {
  const isInt = (t: string) => /^U?INT\d+$/.test(t);
  const textIn = inputs.some((p) => p.dataType === 'STRING');
  const idsOut = outputs.some((p) => isInt(p.dataType));
  const idsIn = inputs.some((p) => isInt(p.dataType));
  const textOut = outputs.some((p) => p.dataType === 'STRING');
  if (textIn && idsOut && !textOut) return 'tokenize';
  if (idsIn && textOut && !idsOut) return 'detokenize';
  return undefined;
}
