/**
 * Presets: the tensor interfaces of known systems (their public templates), so a step can say
 * `"preset": "tensorrt-llm/preprocessing"` and get exact port names, dtypes, dims, batching and
 * parameters. Every field stays overridable on the step.
 */
import { distilbertPresets } from './distilbert.js';
import { embeddingPresets } from './embedding.js';
import { fasterTransformerPresets } from './fasterTransformer.js';
import { llamaCppPresets } from './llamaCpp.js';
import { rerankerPresets } from './reranker.js';
import { simLlmPresets } from './simLlm.js';
import { tensorrtLlmPresets } from './tensorrtLlm.js';
import { vllmPresets } from './vllm.js';
import type { Preset } from './types.js';

export type { Preset, StepTemplate } from './types.js';

const ALL: Preset[] = [
  ...tensorrtLlmPresets,
  ...fasterTransformerPresets,
  ...vllmPresets,
  ...distilbertPresets,
  ...embeddingPresets,
  ...rerankerPresets,
  ...simLlmPresets,
  ...llamaCppPresets,
];

const BY_ID = new Map(ALL.map((p) => [p.id, p]));

export function listPresets(): readonly Preset[] {
  return ALL;
}

export function findPreset(id: string): Preset | undefined {
  return BY_ID.get(id);
}
