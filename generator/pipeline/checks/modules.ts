/**
 * Steps' TypeScript modules (`"hooks"` on tokenize/detokenize, `"source"` on custom): each is on
 * the step kind that runs it, can be read, compiles (its own diagnostics are reported too, in the
 * module's file, as `triton-studio validate` prints them), and fits the contract of
 * `model/hooks.ts`; a custom step's model-config parameters are all set. A step whose module is
 * not known (not looked up, or broken) has unknown ports: the wiring checks keep quiet about it.
 */
import { hooksOf, HOOK_INPUTS_INTERFACE } from '../../model/hooks.js';
import { isNativeStepKind } from '../../model/portRoles.js';
import type { ResolvedStep } from '../resolve.js';
import type { Step } from '../types.js';
import type { CheckContext } from './context.js';

export function checkModules(ctx: CheckContext): void {
  ctx.pipeline.steps.forEach((raw, i) => {
    const step = ctx.steps[i]!;
    checkModuleProperty(ctx, raw, step);
    checkModule(ctx, raw, step);
  });
}

/** `"hooks"` only on tokenize/detokenize steps, `"source"` only on custom ones. */
function checkModuleProperty(ctx: CheckContext, raw: Step, step: ResolvedStep): void {
  const { report } = ctx;
  if (raw.hooks !== undefined && !isNativeStepKind(step.kind)) {
    report(
      [...step.path, 'hooks'],
      'TS-E084',
      `"hooks" run inside tokenize and detokenize steps; a ${step.kind} step cannot call them.` +
        (step.kind === 'custom' ? ' A custom step written in TypeScript names its module in "source".' : ''),
      'error',
      true,
    );
  }
  if (raw.source !== undefined && step.kind !== 'custom') {
    report(
      [...step.path, 'source'],
      'TS-E084',
      `"source" names the TypeScript module of a custom step; a ${step.kind} step` +
        (isNativeStepKind(step.kind) ? ' takes TypeScript hooks in "hooks".' : ' cannot run one.'),
      'error',
      true,
    );
  }
}

/** The step's module: read, compiled, and (checkContract) fitting its contract. */
function checkModule(ctx: CheckContext, raw: Step, step: ResolvedStep): void {
  const { report } = ctx;
  const m = step.module;
  if (!m) return;
  const at = [...step.path, m.property];
  // Its module's ports are unknown: all of a custom step's, a native step's hook inputs.
  const unknownPorts = (): void => {
    (m.property === 'source' ? ctx.presetProblem : ctx.unknownModulePorts).add(step);
  };
  if (!m.loaded) {
    unknownPorts(); // not looked up (the pure checks)
    return;
  }
  const { loaded } = m;
  if (loaded.unreadable !== undefined) {
    unknownPorts();
    report(
      at,
      'TS-E082',
      `Cannot read ${loaded.path}: ${loaded.unreadable}. Give the path of a .ts module, relative to the pipeline file.`,
    );
    return;
  }
  const compiled = loaded.compiled!;
  const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    unknownPorts();
    ctx.diagnostics.push(...compiled.diagnostics);
    const first = errors[0]!;
    report(
      at,
      'TS-E083',
      `${loaded.fileName} does not compile (${errors.length} error${errors.length === 1 ? '' : 's'}; the first, at ` +
        `${first.range.start.line + 1}:${first.range.start.column + 1}: ${first.message}). Fix the module (docs/HOOKS.md lists what compiles).`,
    );
    return;
  }
  checkContract(ctx, raw, step, unknownPorts);
}

/** A compiled module against its contract (model/hooks.ts): hooks, hook inputs, custom parameters. */
function checkContract(ctx: CheckContext, raw: Step, step: ResolvedStep, unknownPorts: () => void): void {
  const { report } = ctx;
  const m = step.module!;
  const loaded = m.loaded!;
  const at = [...step.path, m.property];
  const problems = m.hooks?.problems ?? m.custom?.problems ?? [];
  for (const p of problems) report(at, 'TS-E084', `${loaded.fileName}: ${p}.`);
  if (problems.length > 0) unknownPorts();
  if (m.hooks && problems.length === 0 && m.hooks.hooks.length === 0) {
    const names = hooksOf(step.kind as 'tokenize' | 'detokenize').map((h) => h.name);
    report(
      at,
      'TS-W009',
      `${loaded.fileName} exports none of the hooks a ${step.kind} step calls (${names.join(', ')}); it does nothing here.`,
      'warning',
    );
  }
  if (m.hooks) {
    for (const input of m.hooks.inputs) {
      const clash = step.inputs.find((p) => p.name === input.name && !p.fromModule);
      if (clash && clash.role !== undefined) {
        report(
          at,
          'TS-E084',
          `${HOOK_INPUTS_INTERFACE}.${input.name} names the step's "${clash.role}" input "${clash.name}"; rename the field (each field is an input of its own).`,
        );
      }
    }
  }
  if (m.custom) {
    const missing = m.custom.parameters.filter((f) => step.parameters[f.name] === undefined);
    for (const f of missing) {
      report(
        [...step.path, step.parameters && raw.parameters ? 'parameters' : 'source'],
        'TS-E085',
        `${loaded.fileName} reads parameter "${f.name}" (${m.custom.paramType}.${f.name}); set it in the step's "parameters".`,
      );
    }
  }
}
