/**
 * Names Triton must be able to tell apart and carry: step names unique and not the ensemble's,
 * tensor names free of control characters and surrounding white space, no name twice among the
 * ensemble's or one step's ports. Fills `ctx.stepByName` for the checks after it.
 */
import type { JsonPath } from '../source.js';
import { hasControlChars, type CheckContext, type Report } from './context.js';

export function checkNames(ctx: CheckContext): void {
  const { pipeline, report, inputs, outputs } = ctx;
  for (const step of ctx.steps) {
    if (step.name === pipeline.name) {
      report(
        [...step.path, 'name'],
        'TS-E042',
        `Step "${step.name}" has the ensemble's name; rename the step or the pipeline.`,
      );
    } else if (ctx.stepByName.has(step.name)) {
      report(
        [...step.path, 'name'],
        'TS-E042',
        `Another step is already named "${step.name}"; step names must be unique.`,
      );
    } else ctx.stepByName.set(step.name, step);
  }
  checkTensorNames(inputs, 'ensemble input', report);
  checkTensorNames(outputs, 'ensemble output', report);
  checkDuplicates(inputs, 'ensemble inputs', report);
  checkDuplicates(outputs, 'ensemble outputs', report);
  for (const o of outputs) {
    if (inputs.some((i) => i.name === o.name)) {
      report(
        [...o.path, 'name'],
        'TS-E042',
        `"${o.name}" is both an ensemble input and output; Triton needs distinct names.`,
      );
    }
  }
  for (const step of ctx.steps) {
    for (const side of ['inputs', 'outputs'] as const) {
      checkTensorNames(step[side], `port of step "${step.name}"`, report);
      checkDuplicates(step[side], `${side} of step "${step.name}"`, report);
    }
  }
}

function checkTensorNames(ports: { name: string; path: JsonPath }[], what: string, report: Report): void {
  for (const p of ports) {
    if (hasControlChars(p.name)) {
      report(
        pathOfName(p.path),
        'TS-E041',
        `The name of this ${what} contains a control character (newline, tab…): Triton loads such a name, but every request, map and log that names it must reproduce it exactly. Rename it.`,
      );
    } else if (p.name.trim() !== p.name) {
      report(
        pathOfName(p.path),
        'TS-E041',
        `The name "${p.name}" of this ${what} starts or ends with white space; remove it.`,
      );
    }
  }
}

function pathOfName(path: JsonPath): JsonPath {
  // Ports from a preset point at the "preset" property itself.
  return path[path.length - 1] === 'preset' ? path : [...path, 'name'];
}

function checkDuplicates(ports: { name: string; path: JsonPath }[], what: string, report: Report): void {
  const seen = new Set<string>();
  for (const p of ports) {
    if (seen.has(p.name))
      report(
        pathOfName(p.path),
        'TS-E042',
        `"${p.name}" appears twice among the ${what}; names must be unique.`,
      );
    seen.add(p.name);
  }
}
