/**
 * sim-llm: the project's CPU stand-in LLM (backends/sim-llm) with FasterTransformer's tensor
 * interface (UINT32 ids), plus tokenize/detokenize steps that speak it. The tokenize step takes
 * the ensemble's INT32 `max_tokens` and hands UINT32 on, a conversion Triton's ensemble cannot do.
 */
import { port, type Preset } from './types.js';

export const simLlmPresets: Preset[] = [
  {
    id: 'sim-llm/preprocessing',
    kind: 'tokenize',
    title: 'Tokenize for sim-llm (FasterTransformer-style ports, INT32 max_tokens in, UINT32 out)',
    template: {
      maxBatchSize: 8,
      dynamicBatching: true,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      inputs: [
        port('QUERY', 'STRING', [1], { role: 'text' }),
        port('REQUEST_OUTPUT_LEN', 'INT32', [1], { role: 'requestOutputLen' }),
      ],
      outputs: [
        port('INPUT_ID', 'UINT32', [-1], { role: 'inputIds' }),
        port('REQUEST_INPUT_LEN', 'UINT32', [1], { role: 'inputLength' }),
        port('REQUEST_OUTPUT_LEN', 'UINT32', [-1], { role: 'requestOutputLen' }),
      ],
    },
  },
  {
    id: 'sim-llm/model',
    kind: 'model',
    title: 'sim-llm: CPU stand-in LLM with the FasterTransformer tensor interface and a latency model',
    template: {
      backend: 'sim_llm',
      maxBatchSize: 8,
      dynamicBatching: { maxQueueDelayMicroseconds: 1000 },
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      parameters: { prefill_us_per_token: 50, decode_us_per_step: 2000 },
      inputs: [
        port('input_ids', 'UINT32', [-1], { raggedBatch: true }),
        port('input_lengths', 'UINT32', [1]),
        port('request_output_len', 'UINT32', [-1]),
      ],
      outputs: [port('output_ids', 'UINT32', [-1, -1]), port('sequence_length', 'UINT32', [-1])],
    },
  },
  {
    id: 'sim-llm/postprocessing',
    kind: 'detokenize',
    title: 'Detokenize sim-llm output (UINT32 TOKENS_BATCH + SEQUENCE_LENGTH → OUTPUT)',
    template: {
      maxBatchSize: 8,
      dynamicBatching: true,
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      inputs: [
        port('TOKENS_BATCH', 'UINT32', [-1, -1], { role: 'tokens' }),
        port('SEQUENCE_LENGTH', 'UINT32', [-1], { role: 'sequenceLength' }),
      ],
      outputs: [port('OUTPUT', 'STRING', [-1], { role: 'text' })],
    },
  },
];
