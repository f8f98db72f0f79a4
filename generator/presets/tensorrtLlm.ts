/**
 * TensorRT-LLM `inflight_batcher_llm` (NVIDIA/TensorRT-LLM triton_backend/all_models): the
 * preprocessing / tensorrt_llm / postprocessing interfaces, INT32 ids throughout. The native
 * tokenize step covers the Python step's text, word lists, output length, end/pad ids (the
 * client's END_ID / PAD_ID when sent, else the tokenizer's) and embedding bias. Not covered:
 * the encoder-decoder and multimodal inputs (DECODER_QUERY, IMAGE_*, PROMPT_TABLE_EXTRA_ID…).
 */
import type { Port } from '../pipeline/types.js';
import { port, type Preset } from './types.js';

const scalar = { reshape: [] as number[], optional: true };

/** tensorrt_llm's tensors; the llama.cpp step (llamaCpp.ts) takes the same interface. */
export const TENSORRT_LLM_MODEL_INPUTS: readonly Port[] = [
  port('input_ids', 'INT32', [-1], { raggedBatch: true }),
  port('input_lengths', 'INT32', [1], { reshape: [] }),
  port('request_output_len', 'INT32', [1], { reshape: [] }),
  port('end_id', 'INT32', [1], scalar),
  port('pad_id', 'INT32', [1], scalar),
  port('bad_words_list', 'INT32', [2, -1], { optional: true, raggedBatch: true }),
  port('stop_words_list', 'INT32', [2, -1], { optional: true, raggedBatch: true }),
  port('embedding_bias', 'FP32', [-1], { optional: true, raggedBatch: true }),
  port('beam_width', 'INT32', [1], scalar),
  port('temperature', 'FP32', [1], scalar),
  port('runtime_top_k', 'INT32', [1], scalar),
  port('runtime_top_p', 'FP32', [1], scalar),
  port('repetition_penalty', 'FP32', [1], scalar),
  port('random_seed', 'UINT64', [1], scalar),
  port('streaming', 'BOOL', [1], scalar),
];

export const TENSORRT_LLM_MODEL_OUTPUTS: readonly Port[] = [
  port('output_ids', 'INT32', [-1, -1]),
  port('sequence_length', 'INT32', [-1]),
  port('cum_log_probs', 'FP32', [-1]),
  port('output_log_probs', 'FP32', [-1, -1]),
];

export const tensorrtLlmPresets: Preset[] = [
  {
    id: 'tensorrt-llm/preprocessing',
    kind: 'tokenize',
    title:
      'TensorRT-LLM preprocessing: QUERY + REQUEST_OUTPUT_LEN (+ word lists, end/pad ids, embedding-bias words) → INPUT_ID, lengths, word ids, end/pad ids, embedding bias',
    template: {
      maxBatchSize: 64,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      addSpecialTokens: true,
      inputs: [
        port('QUERY', 'STRING', [1], { role: 'text' }),
        port('REQUEST_OUTPUT_LEN', 'INT32', [1], { role: 'requestOutputLen' }),
        port('BAD_WORDS_DICT', 'STRING', [-1], { role: 'badWords', optional: true }),
        port('STOP_WORDS_DICT', 'STRING', [-1], { role: 'stopWords', optional: true }),
        port('EMBEDDING_BIAS_WORDS', 'STRING', [-1], { role: 'embeddingBiasWords', optional: true }),
        port('EMBEDDING_BIAS_WEIGHTS', 'FP32', [-1], { role: 'embeddingBiasWeights', optional: true }),
        port('END_ID', 'INT32', [1], { role: 'endId', optional: true }),
        port('PAD_ID', 'INT32', [1], { role: 'padId', optional: true }),
      ],
      outputs: [
        port('INPUT_ID', 'INT32', [-1], { role: 'inputIds' }),
        port('REQUEST_INPUT_LEN', 'INT32', [1], { role: 'inputLength' }),
        port('BAD_WORDS_IDS', 'INT32', [2, -1], { role: 'badWordsIds' }),
        port('STOP_WORDS_IDS', 'INT32', [2, -1], { role: 'stopWordsIds' }),
        port('EMBEDDING_BIAS', 'FP32', [-1], { role: 'embeddingBias' }),
        port('REQUEST_OUTPUT_LEN', 'INT32', [-1], { role: 'requestOutputLen' }),
        port('OUT_END_ID', 'INT32', [1], { role: 'endId' }),
        port('OUT_PAD_ID', 'INT32', [1], { role: 'padId' }),
      ],
    },
  },
  {
    id: 'tensorrt-llm/model',
    kind: 'model',
    title: 'TensorRT-LLM engine (backend tensorrtllm, inflight fused batching)',
    template: {
      backend: 'tensorrtllm',
      maxBatchSize: 64,
      decoupled: false,
      dynamicBatching: { preferredBatchSizes: [64], maxQueueDelayMicroseconds: 0 },
      // TensorRT-LLM places the engine on GPUs itself; Triton's instance stays on the CPU.
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      parameters: {
        gpt_model_type: 'inflight_fused_batching',
        gpt_model_path: '/engines/model',
        batch_scheduler_policy: 'guaranteed_no_evict',
        kv_cache_free_gpu_mem_fraction: '0.9',
        exclude_input_in_output: 'true',
      },
      inputs: [...TENSORRT_LLM_MODEL_INPUTS],
      outputs: [...TENSORRT_LLM_MODEL_OUTPUTS],
    },
  },
  {
    id: 'tensorrt-llm/postprocessing',
    kind: 'detokenize',
    title: 'TensorRT-LLM postprocessing: TOKENS_BATCH + SEQUENCE_LENGTH (INT32) → OUTPUT',
    template: {
      maxBatchSize: 64,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      skipSpecialTokens: true,
      inputs: [
        port('TOKENS_BATCH', 'INT32', [-1, -1], { role: 'tokens' }),
        port('SEQUENCE_LENGTH', 'INT32', [-1], { role: 'sequenceLength' }),
      ],
      outputs: [port('OUTPUT', 'STRING', [-1], { role: 'text' })],
    },
  },
];
