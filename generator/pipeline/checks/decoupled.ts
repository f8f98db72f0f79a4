/**
 * Streaming through the ensemble. Triton tracks, for every ensemble tensor, the decoupled step it
 * comes from (through any non-decoupled steps after it) and refuses a step whose inputs come from
 * two different decoupled steps, or from a decoupled step and from no decoupled step (an ensemble
 * input, say): their responses cannot be paired up. A detokenize step decoding
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
    let unstreamed: (typeof incoming)[number] | undefined;
    for (const c of incoming) {
      const o =
        c.from.kind !== 'step'
          ? undefined
          : c.from.step.decoupled
            ? c.from.step
            : originOfStep.get(c.from.step);
      if (o && !origins.has(o)) origins.set(o, c.index);
      if (!o) unstreamed ??= c;
    }
    if (origins.size === 1 && unstreamed) {
      const [origin] = [...origins.keys()];
      const from =
        unstreamed.from.kind === 'step' ? `step "${unstreamed.from.step.name}"` : 'the ensemble input';
      ctx.report(
        ['wires', unstreamed.index],
        'TS-E032',
        `Step "${step.name}" receives the streamed responses of decoupled step "${origin!.name}" and also "${unstreamed.from.port.name}" from ${from}, ` +
          'which does not come through it; Triton rejects this ("inputs originated from different decoupled models"). ' +
          `Feed "${step.name}" only from what "${origin!.name}" produces.`,
      );
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
    const streamed = step.kind === 'detokenize' && origins.size > 0 && step.parameters.streaming !== 'false';
    const hooks = step.module?.hooks?.hooks ?? [];
    if (streamed && hooks.includes('onChunk')) {
      ctx.report(
        [...step.path, 'hooks'],
        'TS-W010',
        `Step "${step.name}" streams "${[...origins.keys()][0]!.name}"'s responses through onChunk, but in a Triton ensemble ` +
          "it learns that an answer ended only when the answer's tokens include the end token: endStream runs then, and " +
          'text onChunk holds back at the end of an answer cut by max_tokens (or by an end token the model does not send) ' +
          'is never sent. The native orchestrator (docs/ARCHITECTURE.md) runs endStream at every end.',
        'warning',
      );
    } else if (streamed && hooks.includes('afterDecode')) {
      ctx.report(
        [...step.path, 'hooks'],
        'TS-W010',
        `Step "${step.name}" decodes streamed responses, so afterDecode (whole answers only) never runs here; export startStream, onChunk and endStream to act on streamed text.`,
        'warning',
      );
    }
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
