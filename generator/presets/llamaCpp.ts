/**
 * The llama.cpp model step (backends/llama-cpp, backend `llama_cpp`): a GGUF model on CPU with
 * TensorRT-LLM's tensor interface (so TensorRT-LLM's preprocessing/postprocessing presets wire to
 * it unchanged), decoupled, in-flight batching of up to `max_sequences` requests.
 */
import { port, type Preset } from './types.js';

const scalar = { reshape: [] as number[], optional: true };

export const llamaCppPresets: Preset[] = [
  {
    id: 'llama-cpp/model',
    kind: 'model',
    title: 'llama.cpp on CPU (GGUF; TensorRT-LLM tensor interface, decoupled, in-flight batching)',
    template: {
      backend: 'llama_cpp',
      maxBatchSize: 8,
      decoupled: true,
      dynamicBatching: { maxQueueDelayMicroseconds: 0 },
      instanceGroups: [{ count: 1, kind: 'CPU' }],
      parameters: { gguf: 'model.gguf', n_threads: '0', max_sequences: '4', context_length: '1024' },
      inputs: [
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
        port('random_seed', 'UINT64', [1], scalar),
        port('streaming', 'BOOL', [1], scalar),
      ],
      outputs: [port('output_ids', 'INT32', [-1, -1]), port('sequence_length', 'INT32', [-1])],
    },
  },
];
