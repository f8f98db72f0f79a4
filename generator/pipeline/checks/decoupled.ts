/**
 * Streaming through the ensemble. Triton tracks, for every ensemble tensor, the decoupled step it
 * comes from (through any non-decoupled steps after it) and refuses a step whose inputs come from
 * two different decoupled steps, or from a decoupled step and from no decoupled step (an ensemble
 * input, say): their responses cannot be paired up. A detokenize step decoding
 * a stream with several instances could decode one answer's chunks out of order.
 */
import type { Wiring } from '../graph.js';
import type { ResolvedStep } from '../resolve.js';
import type { JsonPath } from '../source.js';
import type { CheckContext } from './context.js';

/**
 * TS-W010: what a streaming detokenize step's hooks cannot do in a Triton ensemble. Only an
 * ensemble has these limits (the native orchestrator runs every hook at every end), so they are
 * reported once the serving is known (validate.ts).
 */
export interface EnsembleHookWarning {
  path: JsonPath;
  message: string;
}

export function reportEnsembleHookWarnings(ctx: CheckContext, warnings: EnsembleHookWarning[]): void {
  for (const w of warnings) ctx.report(w.path, 'TS-W010', w.message, 'warning');
}

/** Reports Triton's decoupled-wiring rules; returns the TS-W010 warnings an ensemble would get. */
export function checkDecoupled(ctx: CheckContext, wiring: Wiring): EnsembleHookWarning[] {
  const hookWarnings: EnsembleHookWarning[] = [];
  if (!wiring.order.ok) return hookWarnings;
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
      hookWarnings.push({
        path: [...step.path, 'hooks'],
        message:
          `Step "${step.name}" streams "${[...origins.keys()][0]!.name}"'s responses through onChunk, but in a Triton ensemble ` +
          "it learns that an answer ended only when the answer's tokens include the end token: endStream runs then, and " +
          'text onChunk holds back at the end of an answer cut by max_tokens (or by an end token the model does not send) ' +
          'is never sent. The native orchestrator (the default serving) runs endStream at every end.',
      });
    } else if (streamed && hooks.includes('afterDecode')) {
      hookWarnings.push({
        path: [...step.path, 'hooks'],
        message:
          `Step "${step.name}" decodes streamed responses, so in a Triton ensemble afterDecode (whole answers only) never runs here; ` +
          'the native orchestrator (the default serving) runs it on answers that are not streamed. Export startStream, onChunk and endStream to act on streamed text.',
      });
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
  return hookWarnings;
}
