/**
 * Model config `parameters` of the ensemble and of each step: keys and values that can be written
 * into config.pbtxt, and `null` (remove) only for a parameter the step's preset actually sets.
 */
import type { ResolvedStep } from '../resolve.js';
import type { JsonPath } from '../source.js';
import { hasControlChars, type CheckContext, type Report } from './context.js';

export function checkParameters(ctx: CheckContext): void {
  checkValues(ctx.pipeline.parameters, ['parameters'], ctx.report);
  for (const step of ctx.steps) {
    checkValues(step.parameters, [...step.path, 'parameters'], ctx.report);
    checkRemovedParameters(step, ctx.pipeline.steps[step.index]?.parameters, ctx.report);
  }
}

function checkValues(params: Record<string, unknown> | undefined, path: JsonPath, report: Report): void {
  for (const [k, v] of Object.entries(params ?? {})) {
    if (k === '' || hasControlChars(k)) {
      report(
        [...path, k],
        'TS-E043',
        `Parameter names must be non-empty and free of control characters; rename ${JSON.stringify(k)}.`,
        'error',
        true,
      );
    }
    if (typeof v === 'number' && !Number.isFinite(v)) {
      report([...path, k], 'TS-E043', `Parameter "${k}" must be a finite number or a string.`);
    }
  }
}

/** `"name": null` removes a preset's parameter; naming one the preset does not set removes nothing (a typo?). */
function checkRemovedParameters(
  step: ResolvedStep,
  own: Record<string, unknown> | undefined,
  report: Report,
): void {
  const preset = step.preset?.kind === step.kind ? step.preset : undefined;
  const set = Object.keys(preset?.template.parameters ?? {});
  for (const [k, v] of Object.entries(own ?? {})) {
    if (v !== null || set.includes(k)) continue;
    report(
      [...step.path, 'parameters', k],
      'TS-W006',
      `"${k}": null removes nothing: ${preset ? `preset "${preset.id}" sets no parameter "${k}"` : `step "${step.name}" has no preset`}` +
        `${set.length ? ` (it sets ${set.map((s) => `"${s}"`).join(', ')})` : ''}. Fix the name, or delete the entry.`,
      'warning',
      true,
    );
  }
}
