/**
 * Resolving a pipeline: presets merged under each step's own fields, defaults filled in, so the
 * validator and the repository writer see every step fully spelled out. Each port remembers
 * where in the file it came from (the step's port, or the step's `preset` property) so a
 * diagnostic about it points at text the user can change.
 */
import { findPreset, type Preset } from '../presets/index.js';
import type { JsonPath } from './source.js';
import type { DynamicBatching, InstanceGroup, Pipeline, Port, Step, StepKind } from './types.js';

export interface ResolvedPort extends Port {
  /** Where a diagnostic about this port points. */
  path: JsonPath;
}

export interface ResolvedStep {
  name: string;
  kind: StepKind;
  index: number;
  path: JsonPath;
  preset?: Preset;
  /** Set when the step names a preset that does not exist. */
  unknownPreset?: string;
  backend?: string;
  platform?: string;
  maxBatchSize: number;
  /** undefined = no dynamic batching. */
  dynamicBatching?: DynamicBatching;
  instanceGroups: InstanceGroup[];
  decoupled: boolean;
  parameters: Record<string, string>;
  inputs: ResolvedPort[];
  outputs: ResolvedPort[];
  tokenizer?: string;
  addSpecialTokens: boolean;
  skipSpecialTokens: boolean;
  files: string[];
  config?: Record<string, unknown>;
}

export interface ResolvedEnsemblePort extends Port {
  path: JsonPath;
}

export function resolveSteps(pipeline: Pipeline): ResolvedStep[] {
  return pipeline.steps.map((step, index) => resolveStep(step, index, pipeline));
}

export function resolveEnsemblePorts(pipeline: Pipeline, side: 'inputs' | 'outputs'): ResolvedEnsemblePort[] {
  return pipeline[side].map((p, i) => ({ ...p, path: [side, i] }));
}

function resolveStep(step: Step, index: number, pipeline: Pipeline): ResolvedStep {
  const path: JsonPath = ['steps', index];
  const preset = step.preset !== undefined ? findPreset(step.preset) : undefined;
  const t = preset?.kind === step.kind ? preset.template : undefined;
  const presetPath: JsonPath = [...path, 'preset'];
  const pick = <K extends keyof Step>(k: K): Step[K] | undefined =>
    step[k] !== undefined ? step[k] : (t as Partial<Step> | undefined)?.[k];

  const batching = pick('dynamicBatching');
  const maxBatchSize = pick('maxBatchSize') ?? pipeline.maxBatchSize ?? 0;
  const parameters: Record<string, string> = {};
  // The step's own values win; its `null` removes what the preset sets.
  for (const [k, v] of Object.entries({ ...t?.parameters, ...step.parameters }))
    if (v !== null) parameters[k] = String(v);

  return {
    name: step.name,
    kind: step.kind,
    index,
    path,
    preset,
    unknownPreset: step.preset !== undefined && !preset ? step.preset : undefined,
    // Backend and platform are one choice: a step that makes it (null included) replaces the preset's.
    ...(step.backend !== undefined || step.platform !== undefined
      ? { backend: step.backend ?? undefined, platform: step.platform ?? undefined }
      : { backend: t?.backend ?? undefined, platform: t?.platform ?? undefined }),
    maxBatchSize,
    dynamicBatching:
      batching === true ? {} : batching === false || batching === undefined ? undefined : batching,
    instanceGroups: pick('instanceGroups') ?? [],
    decoupled: pick('decoupled') ?? false,
    parameters,
    inputs: mergePorts(t?.inputs, step.inputs, [...path, 'inputs'], presetPath),
    outputs: mergePorts(t?.outputs, step.outputs, [...path, 'outputs'], presetPath),
    tokenizer: pick('tokenizer'),
    addSpecialTokens: pick('addSpecialTokens') ?? true,
    skipSpecialTokens: pick('skipSpecialTokens') ?? true,
    files: step.files ?? [],
    config: step.config,
  };
}

/** Preset ports first (in preset order), changed or removed by the step's ports of the same name. */
function mergePorts(
  presetPorts: Port[] | undefined,
  stepPorts: Port[] | undefined,
  stepPath: JsonPath,
  presetPath: JsonPath,
): ResolvedPort[] {
  const out: ResolvedPort[] = (presetPorts ?? []).map((p) => ({ ...p, path: presetPath }));
  (stepPorts ?? []).forEach((p, i) => {
    const at = out.findIndex((q) => q.name === p.name && q.path === presetPath);
    const path = [...stepPath, i];
    if (p.remove) {
      if (at >= 0) out.splice(at, 1);
      return;
    }
    if (at >= 0) out[at] = { ...out[at]!, ...p, path };
    else out.push({ ...p, path });
  });
  return out;
}
