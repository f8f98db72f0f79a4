/**
 * What each port of a native tokenize/detokenize step can mean, once (shaped like
 * `pbtxt/descriptor.ts`): validation (which roles a step kind takes, which it needs, their dtype
 * class), import (the tensor names that reveal a role), the repository writer and the C++ printer
 * (the `TokenizeSpec` / `DetokenizeSpec` field a role binds) all derive from this table; the JSON
 * Schema's role enum, the presets and `backends/triton/include/triton_studio/steps.h` are checked
 * against it by `test/unit/model-tables.test.ts`. Rows are in the order the C++ printer emits them.
 */
import type { DataTypeClass } from './dataTypes.js';

/** The step kinds that run natively and bind ports by role. */
export type NativeStepKind = 'tokenize' | 'detokenize';
export type PortSide = 'inputs' | 'outputs';

/** Preset families (the part of a preset id before `/`) whose native steps bind roles. */
export type PresetFamily =
  | 'tensorrt-llm'
  | 'fastertransformer-gptj'
  | 'sim-llm'
  | 'distilbert-onnx'
  | 'embedding-onnx'
  | 'reranker-onnx';

export interface PortRoleDescriptor {
  readonly stepKind: NativeStepKind;
  readonly side: PortSide;
  readonly role: string;
  /** The step cannot work without it (validation asks for it; the C++ field is not optional). */
  readonly required: boolean;
  readonly dtypeClass: DataTypeClass;
  /** The `TokenizeSpec` / `DetokenizeSpec` field (backends/triton steps.h) the binding fills. */
  readonly cppField: string;
  /** The tensor name each preset family gives the port with this role. */
  readonly presetNames: Partial<Record<PresetFamily, string>>;
  /** Further names import recognises (templates without a preset here). */
  readonly importAliases?: readonly string[];
  readonly doc: string;
}

const TRT = 'tensorrt-llm';
const FT = 'fastertransformer-gptj';
const SIM = 'sim-llm';
const BERT = 'distilbert-onnx';
const EMB = 'embedding-onnx';
const RR = 'reranker-onnx';

export const PORT_ROLES = [
  // --- tokenize inputs
  {
    ...at('tokenize', 'inputs', 'text', 'string', 'text'),
    required: true,
    presetNames: {
      [TRT]: 'QUERY',
      [FT]: 'QUERY',
      [SIM]: 'QUERY',
      [BERT]: 'TEXT',
      [EMB]: 'TEXT',
      [RR]: 'TEXT',
    },
    importAliases: ['text_input'],
    doc: 'STRING prompt, one string per batch row',
  },
  {
    ...at('tokenize', 'inputs', 'textPair', 'string', 'text_pair'),
    presetNames: { [RR]: 'TEXT_PAIR' },
    importAliases: ['text_pair'],
    doc: "STRING second text per row (cross-encoders, rerankers): encoded with the tokenizer's pair template and truncation",
  },
  {
    ...at('tokenize', 'inputs', 'requestOutputLen', 'integer', 'request_output_len_in'),
    presetNames: { [TRT]: 'REQUEST_OUTPUT_LEN', [FT]: 'REQUEST_OUTPUT_LEN', [SIM]: 'REQUEST_OUTPUT_LEN' },
    doc: 'passed through to outputs.requestOutputLen (with integer dtype conversion)',
  },
  {
    ...at('tokenize', 'inputs', 'badWords', 'string', 'bad_words'),
    presetNames: { [TRT]: 'BAD_WORDS_DICT', [FT]: 'BAD_WORDS_DICT' },
    doc: 'STRING word list per row',
  },
  {
    ...at('tokenize', 'inputs', 'stopWords', 'string', 'stop_words'),
    presetNames: { [TRT]: 'STOP_WORDS_DICT', [FT]: 'STOP_WORDS_DICT' },
    doc: 'STRING word list per row',
  },
  {
    ...at('tokenize', 'inputs', 'endId', 'integer', 'end_id_in'),
    presetNames: { [TRT]: 'END_ID' },
    doc: "the client's end id, passed through to outputs.endId when the request has it",
  },
  {
    ...at('tokenize', 'inputs', 'padId', 'integer', 'pad_id_in'),
    presetNames: { [TRT]: 'PAD_ID' },
    doc: "the client's pad id, passed through to outputs.padId",
  },
  {
    ...at('tokenize', 'inputs', 'embeddingBiasWords', 'string', 'embedding_bias_words'),
    presetNames: { [TRT]: 'EMBEDDING_BIAS_WORDS' },
    doc: 'STRING words per row',
  },
  {
    ...at('tokenize', 'inputs', 'embeddingBiasWeights', 'float', 'embedding_bias_weights'),
    presetNames: { [TRT]: 'EMBEDDING_BIAS_WEIGHTS' },
    doc: 'FP32/FP64, one weight per word',
  },
  {
    ...at('tokenize', 'inputs', 'messages', 'string', 'messages'),
    presetNames: {},
    importAliases: ['messages'],
    doc: "STRING [1] per row: an OpenAI-style conversation (JSON array of messages), rendered with the step's chat template instead of the text",
  },
  {
    ...at('tokenize', 'inputs', 'tools', 'string', 'tools'),
    presetNames: {},
    importAliases: ['tools'],
    doc: 'STRING [1] per row: the tools the chat template offers (JSON array, OpenAI shape)',
  },
  {
    ...at('tokenize', 'inputs', 'chatTemplateKwargs', 'string', 'chat_template_kwargs'),
    presetNames: {},
    importAliases: ['chat_template_kwargs'],
    doc: 'STRING [1] per row: extra template variables (JSON object, e.g. {"enable_thinking": false})',
  },
  // --- tokenize outputs
  {
    ...at('tokenize', 'outputs', 'inputIds', 'integer', 'input_ids'),
    required: true,
    presetNames: {
      [TRT]: 'INPUT_ID',
      [FT]: 'INPUT_ID',
      [SIM]: 'INPUT_ID',
      [BERT]: 'input_ids',
      [EMB]: 'input_ids',
      [RR]: 'input_ids',
    },
    doc: 'ids padded to the longest row',
  },
  {
    ...at('tokenize', 'outputs', 'inputLength', 'integer', 'input_length'),
    presetNames: { [TRT]: 'REQUEST_INPUT_LEN', [FT]: 'REQUEST_INPUT_LEN', [SIM]: 'REQUEST_INPUT_LEN' },
    doc: '[1] per row: the number of ids',
  },
  {
    ...at('tokenize', 'outputs', 'requestOutputLen', 'integer', 'request_output_len_out'),
    presetNames: { [TRT]: 'REQUEST_OUTPUT_LEN', [FT]: 'REQUEST_OUTPUT_LEN', [SIM]: 'REQUEST_OUTPUT_LEN' },
    doc: 'pass-through copy of inputs.requestOutputLen',
  },
  {
    ...at('tokenize', 'outputs', 'badWordsIds', 'integer', 'bad_words_ids'),
    presetNames: { [TRT]: 'BAD_WORDS_IDS', [FT]: 'BAD_WORDS_IDS' },
    doc: '[2,-1] per row: flattened ids + offsets',
  },
  {
    ...at('tokenize', 'outputs', 'stopWordsIds', 'integer', 'stop_words_ids'),
    presetNames: { [TRT]: 'STOP_WORDS_IDS', [FT]: 'STOP_WORDS_IDS' },
    doc: '[2,-1] per row: flattened ids + offsets',
  },
  {
    ...at('tokenize', 'outputs', 'endId', 'integer', 'end_id'),
    presetNames: { [TRT]: 'OUT_END_ID' },
    doc: "inputs.endId when sent, else the tokenizer's end-of-sequence id",
  },
  {
    ...at('tokenize', 'outputs', 'padId', 'integer', 'pad_id'),
    presetNames: { [TRT]: 'OUT_PAD_ID' },
    doc: 'inputs.padId when sent, else its pad id (or the end id)',
  },
  {
    ...at('tokenize', 'outputs', 'attentionMask', 'integer', 'attention_mask'),
    presetNames: { [BERT]: 'attention_mask', [EMB]: 'attention_mask', [RR]: 'attention_mask' },
    doc: 'encoder models (BERT): 1 for each real token, 0 for padding, same shape as inputIds',
  },
  {
    ...at('tokenize', 'outputs', 'tokenTypeIds', 'integer', 'token_type_ids'),
    presetNames: { [EMB]: 'token_type_ids', [RR]: 'token_type_ids' },
    doc: "encoder models: each id's type id (0 first text, 1 second, as the post-processor sets them; pad_type_id for padding), same shape as inputIds",
  },
  {
    ...at('tokenize', 'outputs', 'embeddingBias', 'float', 'embedding_bias'),
    presetNames: { [TRT]: 'EMBEDDING_BIAS' },
    doc: "FP32/FP64 [vocab] per row: the words' weights summed at their token ids ([0] without words)",
  },
  // --- detokenize
  {
    ...at('detokenize', 'inputs', 'tokens', 'integer', 'tokens'),
    required: true,
    presetNames: { [TRT]: 'TOKENS_BATCH', [FT]: 'TOKENS_BATCH', [SIM]: 'TOKENS_BATCH' },
    doc: '[-1,-1] (beam, sequence) or [-1] (sequence)',
  },
  {
    ...at('detokenize', 'inputs', 'sequenceLength', 'integer', 'sequence_length'),
    presetNames: { [TRT]: 'SEQUENCE_LENGTH', [FT]: 'SEQUENCE_LENGTH', [SIM]: 'SEQUENCE_LENGTH' },
    doc: '[-1]: one length per beam',
  },
  {
    ...at('detokenize', 'outputs', 'text', 'string', 'text'),
    required: true,
    presetNames: { [TRT]: 'OUTPUT', [FT]: 'OUTPUT', [SIM]: 'OUTPUT' },
    importAliases: ['text_output'],
    doc: 'STRING, one string per beam',
  },
] as const satisfies readonly PortRoleDescriptor[];

type Row = (typeof PORT_ROLES)[number];
type RolesOf<K extends NativeStepKind, S extends PortSide> = Extract<Row, { stepKind: K; side: S }>['role'];

export type TokenizeInputRole = RolesOf<'tokenize', 'inputs'>;
export type TokenizeOutputRole = RolesOf<'tokenize', 'outputs'>;
export type DetokenizeInputRole = RolesOf<'detokenize', 'inputs'>;
export type DetokenizeOutputRole = RolesOf<'detokenize', 'outputs'>;
/** What a port means to a native step; only tokenize/detokenize ports carry a role. */
export type PortRole = Row['role'];

/**
 * One binding per role of a step kind and side: required roles as required properties, the rest
 * optional (the shape of `TokenizeStepModel.inputs` and friends).
 */
export type RoleBindings<K extends NativeStepKind, S extends PortSide, B> = {
  [R in Extract<Row, { stepKind: K; side: S; required: true }> as R['role']]: B;
} & {
  [R in Extract<Row, { stepKind: K; side: S; required: false }> as R['role']]?: B;
};

export function isNativeStepKind(kind: string): kind is NativeStepKind {
  return kind === 'tokenize' || kind === 'detokenize';
}

/** The rows of one step kind (and side), in table order. */
export function portRoles(kind: NativeStepKind, side?: PortSide): readonly PortRoleDescriptor[] {
  return PORT_ROLES.filter((r) => r.stepKind === kind && (side === undefined || r.side === side));
}

/** Tensor name → role, for every name import recognises on one side of a step kind. */
export function roleByTensorName(kind: NativeStepKind, side: PortSide): Map<string, PortRole> {
  const names = new Map<string, PortRole>();
  for (const r of portRoles(kind, side) as readonly (PortRoleDescriptor & { role: PortRole })[]) {
    for (const name of [...Object.values(r.presetNames), ...(r.importAliases ?? [])]) names.set(name, r.role);
  }
  return names;
}

function at<K extends NativeStepKind, S extends PortSide, R extends string, C extends DataTypeClass>(
  stepKind: K,
  side: S,
  role: R,
  dtypeClass: C,
  cppField: string,
) {
  return { stepKind, side, role, dtypeClass, cppField, required: false as const };
}
