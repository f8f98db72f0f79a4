/**
 * vLLM (triton-inference-server/vllm_backend): one decoupled model that tokenizes, generates and
 * detokenizes itself, so a vLLM pipeline has no tokenizer steps. Its engine settings live in
 * `model.json` in the version folder (list it in the step's "files").
 */
import { port, type Preset } from './types.js';

export const vllmPresets: Preset[] = [
  {
    id: 'vllm/model',
    kind: 'model',
    title: 'vLLM engine (backend vllm, decoupled, text in / text out)',
    template: {
      backend: 'vllm',
      maxBatchSize: 0,
      decoupled: true,
      instanceGroups: [{ count: 1, kind: 'MODEL' }],
      inputs: [
        port('text_input', 'STRING', [1]),
        port('stream', 'BOOL', [1], { optional: true }),
        port('sampling_parameters', 'STRING', [1], { optional: true }),
        port('exclude_input_in_output', 'BOOL', [1], { optional: true }),
      ],
      outputs: [port('text_output', 'STRING', [-1])],
    },
  },
];
