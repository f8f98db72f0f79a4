/**
 * Presets: a step names one that exists and is for its kind; every port the step declares itself
 * (not taken from a preset) has its dataType and dims. Fills `ctx.presetProblem`: such a step's
 * ports are unknown, so later checks say nothing more about them.
 */
import type { StepKind } from '../types.js';
import type { CheckContext } from './context.js';

export function checkPresets(ctx: CheckContext): void {
  const { report } = ctx;
  for (const step of ctx.steps) {
    if (step.unknownPreset !== undefined) {
      ctx.presetProblem.add(step);
      report(
        [...step.path, 'preset'],
        'TS-E050',
        `Unknown preset "${step.unknownPreset}". ${presetHint(step.kind)}`,
      );
    } else if (step.preset && step.preset.kind !== step.kind) {
      ctx.presetProblem.add(step);
      report(
        [...step.path, 'preset'],
        'TS-E050',
        `Preset "${step.preset.id}" is for a ${step.preset.kind} step, but this step's kind is "${step.kind}"; change one of them.`,
      );
    }
    for (const side of ['inputs', 'outputs'] as const) {
      for (const p of step[side]) {
        if (p.dataType === undefined || p.dims === undefined) {
          report(
            p.path,
            'TS-E002',
            `Port "${p.name}" of step "${step.name}" needs "dataType" and "dims" (no preset declares this port).`,
          );
        }
      }
    }
  }
}

function presetHint(kind: StepKind): string {
  return `See docs/PIPELINE.md for the preset list (${kind} presets have ids like "sim-llm/${kind === 'tokenize' ? 'preprocessing' : kind === 'detokenize' ? 'postprocessing' : 'model'}").`;
}
