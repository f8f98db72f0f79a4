/**
 * Resolving a pipeline: presets merged under each step's own fields, defaults filled in, so the
 * validator and the repository writer see every step fully spelled out. Each port remembers
 * where in the file it came from (the step's port, or the step's `preset` property) so a
 * diagnostic about it points at text the user can change.
 */
import type { ModuleBudget } from '../model/hooks.js';
import { isNativeStepKind } from '../model/portRoles.js';
import { findPreset, type Preset } from '../presets/index.js';
import {
  customStepInterface,
  hookInterface,
  type CustomModuleInterface,
  type HookModuleInterface,
  type ModulePort,
} from '../tscompile/index.js';
import type { StepModule, StepModules } from './modules.js';
import type { JsonPath } from './source.js';
import type { DynamicBatching, InstanceGroup, Pipeline, Port, Step, StepKind } from './types.js';

export interface ResolvedPort extends Port {
  /** Where a diagnostic about this port points. */
  path: JsonPath;
  /** Declared by the step's TypeScript module (hook inputs, custom step tensors). */
  fromModule?: boolean;
}

/** A step's TypeScript module (`hooks` or `source`) as far as it was looked up. */
export interface ResolvedModule {
  /** `hooks` or `source`: the property that names it (diagnostics point at its value). */
  property: 'hooks' | 'source';
  ref: string;
  /** Undefined when modules were not looked up (the pure checks): the step's ports are unknown. */
  loaded?: StepModule;
  hooks?: HookModuleInterface;
  custom?: CustomModuleInterface;
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
  chatTemplate?: string;
  generationConfig?: string;
  files: string[];
  config?: Record<string, unknown>;
  module?: ResolvedModule;
  budget?: ModuleBudget;
}

export interface ResolvedEnsemblePort extends Port {
  path: JsonPath;
}

/** Where step modules come from: without it, steps with a module have unknown module ports. */
export interface ModuleLookup {
  modules: StepModules;
  /** The pipeline file (module paths are relative to it). */
  file: string;
}

export function resolveSteps(pipeline: Pipeline, lookup?: ModuleLookup): ResolvedStep[] {
  return pipeline.steps.map((step, index) => resolveStep(step, index, pipeline, lookup));
}

export function resolveEnsemblePorts(pipeline: Pipeline, side: 'inputs' | 'outputs'): ResolvedEnsemblePort[] {
  return pipeline[side].map((p, i) => ({ ...p, path: [side, i] }));
}

function resolveStep(step: Step, index: number, pipeline: Pipeline, lookup?: ModuleLookup): ResolvedStep {
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

  const module = resolveModule(step, lookup);
  const modulePorts = (side: 'inputs' | 'outputs'): Port[] =>
    module?.custom
      ? module.custom[side].map((p) => portOf(p.port))
      : side === 'inputs'
        ? (module?.hooks?.inputs ?? []).map(portOf)
        : [];
  const modulePath: JsonPath = [...path, module?.property ?? 'hooks'];
  return {
    name: step.name,
    kind: step.kind,
    index,
    path,
    preset,
    module,
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
    inputs: mergePorts(
      t?.inputs,
      modulePorts('inputs'),
      modulePath,
      step.inputs,
      [...path, 'inputs'],
      presetPath,
    ),
    outputs: mergePorts(
      t?.outputs,
      modulePorts('outputs'),
      modulePath,
      step.outputs,
      [...path, 'outputs'],
      presetPath,
    ),
    tokenizer: pick('tokenizer'),
    addSpecialTokens: pick('addSpecialTokens') ?? true,
    skipSpecialTokens: pick('skipSpecialTokens') ?? true,
    ...(step.chatTemplate !== undefined && { chatTemplate: step.chatTemplate }),
    ...(step.generationConfig !== undefined && { generationConfig: step.generationConfig }),
    files: step.files ?? [],
    config: step.config,
    budget: step.budget,
  };
}

function resolveModule(step: Step, lookup: ModuleLookup | undefined): ResolvedModule | undefined {
  const property = step.kind === 'custom' ? 'source' : isNativeStepKind(step.kind) ? 'hooks' : undefined;
  const ref = property === 'source' ? step.source : property === 'hooks' ? step.hooks : undefined;
  if (!property || ref === undefined) return undefined;
  if (!lookup) return { property, ref };
  const loaded = lookup.modules.load(ref, lookup.file);
  const c = loaded.compiled;
  if (!c || c.diagnostics.some((d) => d.severity === 'error')) return { property, ref, loaded };
  if (property === 'source') return { property, ref, loaded, custom: customStepInterface(c) };
  return { property, ref, loaded, hooks: hookInterface(c, step.kind as 'tokenize' | 'detokenize') };
}

function portOf(p: ModulePort): Port {
  return { ...p, dims: [...p.dims] };
}

/**
 * Preset ports first (in preset order), then the ports the step's module declares, changed or
 * removed by the step's own ports of the same name.
 */
function mergePorts(
  presetPorts: Port[] | undefined,
  modulePorts: Port[],
  modulePath: JsonPath,
  stepPorts: Port[] | undefined,
  stepPath: JsonPath,
  presetPath: JsonPath,
): ResolvedPort[] {
  const out: ResolvedPort[] = (presetPorts ?? []).map((p) => ({ ...p, path: presetPath }));
  for (const p of modulePorts) {
    if (!out.some((q) => q.name === p.name)) out.push({ ...p, path: modulePath, fromModule: true });
  }
  (stepPorts ?? []).forEach((p, i) => {
    const at = out.findIndex((q) => q.name === p.name && (q.path === presetPath || q.path === modulePath));
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
