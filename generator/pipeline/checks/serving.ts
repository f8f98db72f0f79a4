/**
 * What clients call when a decoupled model step streams into a detokenize step: the native
 * orchestrator (the default) or a Triton ensemble, whose detokenize step sees each streamed
 * response as a request of its own and can keep a stream's decoder only by request id.
 */
import type { EnsembleGraph } from '../graph.js';
import { planOrchestrator, streamsIntoDetokenize } from '../orchestration.js';
import type { Serving } from '../types.js';
import type { CheckContext } from './context.js';

/** The warning an ensemble that detokenizes a stream gets (also for `generate --ensemble`). */
export function ensembleIdWarning(detokenize: string, why: string): string {
  return (
    `${why}: its step "${detokenize}" decodes each streamed response as a request of its own, so a stream ` +
    'is exact only when the client sends an id unique among requests in flight (GenAI-Perf, AIPerf and curl send ' +
    'none: their streams lose spaces and split characters). Serve it with the native orchestrator (the default) ' +
    'unless a client needs the ensemble.'
  );
}

export function checkServing(ctx: CheckContext, graph: EnsembleGraph): Serving {
  const requested = ctx.pipeline.serving;
  const detokenize = streamsIntoDetokenize(graph);
  if (!detokenize) return 'ensemble';
  if (requested === 'ensemble') {
    ctx.report(
      ['serving'],
      'TS-W011',
      ensembleIdWarning(detokenize.name, 'This pipeline is served as a Triton ensemble'),
      'warning',
    );
    return 'ensemble';
  }
  const planned = planOrchestrator(graph);
  if (planned.ok) return 'orchestrator';
  if (requested === 'orchestrator') {
    ctx.report(
      ['serving'],
      'TS-E034',
      `The native orchestrator cannot serve this pipeline: ${planned.reason}. ` +
        'Set "serving" to "ensemble" (or remove it) to generate a Triton ensemble.',
    );
  } else {
    ctx.report(
      ['name'],
      'TS-W011',
      ensembleIdWarning(
        detokenize.name,
        `This pipeline is generated as a Triton ensemble, because the native orchestrator cannot serve it (${planned.reason})`,
      ),
      'warning',
    );
  }
  return 'ensemble';
}
