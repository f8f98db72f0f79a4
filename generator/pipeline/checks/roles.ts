/**
 * Port roles (generator/model/portRoles.ts): a tokenize/detokenize step gives every port a role
 * its kind has on that side, each role at most once, every required role, and an output that
 * copies an input only with that input; other steps' ports carry no role.
 */
import { isNativeStepKind, portRoles } from '../../model/portRoles.js';
import type { ResolvedStep } from '../resolve.js';
import type { CheckContext, Report } from './context.js';

export function checkRoles(ctx: CheckContext): void {
  for (const step of ctx.steps) checkStepRoles(step, ctx.report);
}

function checkStepRoles(step: ResolvedStep, report: Report): void {
  const native = isNativeStepKind(step.kind) ? step.kind : undefined;
  for (const side of ['inputs', 'outputs'] as const) {
    const ports = step[side];
    if (!native) {
      for (const p of ports) {
        if (p.role !== undefined) {
          report(
            p.path,
            'TS-E053',
            `Port "${p.name}": roles are for tokenize/detokenize steps; remove "role" from this ${step.kind} step's port.`,
          );
        }
      }
      continue;
    }
    const allowed = Object.fromEntries(portRoles(native, side).map((r) => [r.role, r.required]));
    const seen = new Map<string, string>();
    let misassigned = false;
    for (const p of ports) {
      if (p.fromModule && p.role === undefined) continue; // a hook input: the hook reads it, not the step
      if (p.role === undefined) {
        misassigned = true;
        report(
          p.path,
          'TS-E053',
          `Port "${p.name}" of ${step.kind} step "${step.name}" needs a "role" (one of ${Object.keys(allowed).join(', ')}) so the native step knows what to do with it.`,
        );
        continue;
      }
      if (!(p.role in allowed)) {
        misassigned = true;
        report(
          p.path,
          'TS-E053',
          `Role "${p.role}" is not an ${side === 'inputs' ? 'input' : 'output'} role of a ${step.kind} step; use one of ${Object.keys(allowed).join(', ')}.`,
        );
        continue;
      }
      const prev = seen.get(p.role);
      if (prev !== undefined) {
        report(p.path, 'TS-E052', `Ports "${prev}" and "${p.name}" both have role "${p.role}"; keep one.`);
      }
      seen.set(p.role, p.name);
    }
    for (const [role, required] of Object.entries(allowed)) {
      if (required && !seen.has(role) && !misassigned) {
        report(
          step.path,
          'TS-E052',
          `${step.kind === 'tokenize' ? 'Tokenize' : 'Detokenize'} step "${step.name}" needs an ${side === 'inputs' ? 'input' : 'output'} with role "${role}".`,
        );
      }
    }
    if (
      step.kind === 'tokenize' &&
      side === 'outputs' &&
      seen.has('requestOutputLen') &&
      !step.inputs.some((p) => p.role === 'requestOutputLen')
    ) {
      report(
        step.path,
        'TS-E052',
        `Step "${step.name}" outputs requestOutputLen but has no input with that role to copy it from.`,
      );
    }
  }
}
