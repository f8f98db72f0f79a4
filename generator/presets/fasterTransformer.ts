/**
 * FasterTransformer GPT-J (fastertransformer_backend all_models/gptj, as used to serve
 * codegen-350M-mono-gptj): UINT32 ids, GPT-2 BPE with start = end = pad = 50256, batch 1024.
 */
import { port, type Preset } from './types.js';

const scalar = { optional: true };

export const fasterTransformerPresets: Preset[] = [
  {
    id: 'fastertransformer-gptj/preprocessing',
    kind: 'tokenize',
    title:
      'FasterTransformer GPT-J preprocessing: QUERY, word lists, REQUEST_OUTPUT_LEN (UINT32) → INPUT_ID …',
    template: {
      maxBatchSize: 1024,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      addSpecialTokens: false,
      inputs: [
        port('QUERY', 'STRING', [-1], { role: 'text' }),
        port('BAD_WORDS_DICT', 'STRING', [-1], { role: 'badWords', optional: true }),
        port('STOP_WORDS_DICT', 'STRING', [-1], { role: 'stopWords', optional: true }),
        port('REQUEST_OUTPUT_LEN', 'UINT32', [-1], { role: 'requestOutputLen' }),
      ],
      outputs: [
        port('INPUT_ID', 'UINT32', [-1], { role: 'inputIds' }),
        port('REQUEST_INPUT_LEN', 'UINT32', [1], { role: 'inputLength' }),
        port('BAD_WORDS_IDS', 'INT32', [2, -1], { role: 'badWordsIds' }),
        port('STOP_WORDS_IDS', 'INT32', [2, -1], { role: 'stopWordsIds' }),
        port('REQUEST_OUTPUT_LEN', 'UINT32', [-1], { role: 'requestOutputLen' }),
      ],
    },
  },
  {
    id: 'fastertransformer-gptj/model',
    kind: 'model',
    title: 'FasterTransformer GPT-J (backend fastertransformer)',
    template: {
      backend: 'fastertransformer',
      maxBatchSize: 1024,
      dynamicBatching: { maxQueueDelayMicroseconds: 50000 },
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      parameters: {
        tensor_para_size: '1',
        pipeline_para_size: '1',
        model_type: 'GPT-J',
        model_checkpoint_path: '/models/fastertransformer/1/1-gpu',
        enable_custom_all_reduce: '0',
      },
      inputs: [
        port('input_ids', 'UINT32', [-1]),
        port('input_lengths', 'UINT32', [1]),
        port('request_output_len', 'UINT32', [-1]),
        port('runtime_top_k', 'UINT32', [1], scalar),
        port('runtime_top_p', 'FP32', [1], scalar),
        port('temperature', 'FP32', [1], scalar),
        port('len_penalty', 'FP32', [1], scalar),
        port('repetition_penalty', 'FP32', [1], scalar),
        port('random_seed', 'UINT64', [1], scalar),
        port('is_return_log_probs', 'BOOL', [1], scalar),
        port('beam_width', 'UINT32', [1], scalar),
        port('start_id', 'UINT32', [1], scalar),
        port('end_id', 'UINT32', [1], scalar),
        port('bad_words_list', 'INT32', [2, -1], scalar),
        port('stop_words_list', 'INT32', [2, -1], scalar),
      ],
      outputs: [
        port('output_ids', 'UINT32', [-1, -1]),
        port('sequence_length', 'UINT32', [-1]),
        port('cum_log_probs', 'FP32', [-1]),
        port('output_log_probs', 'FP32', [-1, -1]),
      ],
    },
  },
  {
    id: 'fastertransformer-gptj/postprocessing',
    kind: 'detokenize',
    title: 'FasterTransformer GPT-J postprocessing: TOKENS_BATCH (UINT32) → OUTPUT',
    template: {
      maxBatchSize: 1024,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      skipSpecialTokens: true,
      inputs: [
        port('TOKENS_BATCH', 'UINT32', [-1, -1], { role: 'tokens' }),
        port('SEQUENCE_LENGTH', 'UINT32', [-1], { role: 'sequenceLength', optional: true }),
      ],
      outputs: [port('OUTPUT', 'STRING', [-1, -1], { role: 'text' })],
    },
  },
];
