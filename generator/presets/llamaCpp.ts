/**
 * The llama.cpp model step (backends/llama-cpp, backend `llama_cpp`): a GGUF model on CPU with
 * TensorRT-LLM's tensor interface (so TensorRT-LLM's preprocessing/postprocessing presets wire to
 * it unchanged), decoupled, in-flight batching of up to `max_sequences` requests.
 */
import { TENSORRT_LLM_MODEL_INPUTS, TENSORRT_LLM_MODEL_OUTPUTS } from './tensorrtLlm.js';
import type { Preset } from './types.js';

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
      // TensorRT-LLM's tensors, less what llama.cpp's step does not take: no repetition penalty,
      // no log probabilities.
      inputs: TENSORRT_LLM_MODEL_INPUTS.filter((p) => p.name !== 'repetition_penalty'),
      outputs: TENSORRT_LLM_MODEL_OUTPUTS.filter((p) => ['output_ids', 'sequence_length'].includes(p.name)),
    },
  },
];
