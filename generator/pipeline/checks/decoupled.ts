/**
 * Streaming through the ensemble. Triton tracks, for every ensemble tensor, the decoupled step it
 * comes from (through any non-decoupled steps after it) and refuses a step whose inputs come from
 * two different decoupled steps: their responses cannot be paired up. A detokenize step decoding
 * a stream with several instances could decode one answer's chunks out of order.
 */
import type { Wiring } from '../graph.js';
import type { ResolvedStep } from '../resolve.js';
import type { CheckContext } from './context.js';

export function checkDecoupled(ctx: CheckContext, wiring: Wiring): void {
  if (!wiring.order.ok) return;
  const { connections } = wiring;
  const originOfStep = new Map<ResolvedStep, ResolvedStep | undefined>();
  for (const step of wiring.order.steps) {
    const incoming = connections.filter((c) => c.to.kind === 'step' && c.to.step === step);
    const origins = new Map<ResolvedStep, number>();
    for (const c of incoming) {
      if (c.from.kind !== 'step') continue;
      const o = c.from.step.decoupled ? c.from.step : originOfStep.get(c.from.step);
      if (o && !origins.has(o)) origins.set(o, c.index);
    }
    if (origins.size > 1) {
      const [a, b] = [...origins.keys()];
      ctx.report(
        ['wires', [...origins.values()][1]!],
        'TS-E032',
        `Step "${step.name}" receives inputs that come from two different decoupled steps ("${a!.name}" and "${b!.name}"); ` +
          'Triton rejects this because their streamed responses cannot be paired. Feed it from one decoupled step.',
      );
    }
    originOfStep.set(step, [...origins.keys()][0]);
    const instances = step.instanceGroups.reduce((n, g) => n + (g.count ?? 1), 0);
    if (
      step.kind === 'detokenize' &&
      origins.size > 0 &&
      step.parameters.streaming !== 'false' &&
      instances > 1
    ) {
      ctx.report(
        [...step.path, 'instanceGroups'],
        'TS-W004',
        `Step "${step.name}" decodes the streamed responses of "${[...origins.keys()][0]!.name}" with ${instances} instances, ` +
          'so the chunks of one answer can be decoded out of order. Give it one instance.',
        'warning',
      );
    }
  }
}
