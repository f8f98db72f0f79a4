/** What the server itself measured during a test: differences of Triton's cumulative statistics. */
import type { ModelStatistics, StatisticDuration } from '../../grpc/types.js';
import { round3 } from './summary.js';

/** What the server itself measured for one model during a test (differences of cumulative counters). */
export interface ServerModelBreakdown {
  model: string;
  version: string;
  /** Successful requests. */
  requests: number;
  failures: number;
  /** Model executions; requests / executions = mean batch size under dynamic batching. */
  executions: number;
  meanBatchSize: number;
  avgQueueMs: number;
  avgComputeInputMs: number;
  avgComputeInferMs: number;
  avgComputeOutputMs: number;
  /** Mean time of a successful request inside the server (queue + compute), ms. */
  avgRequestMs: number;
  /** Requests waiting in the model's queue (Prometheus `nv_inference_pending_request_count`), sampled through the run. */
  pendingRequests?: { avg: number; max: number };
}

/** Per-model breakdown between two `ModelStatistics` snapshots; models without traffic are left out. */
export function statisticsDelta(before: ModelStatistics[], after: ModelStatistics[]): ServerModelBreakdown[] {
  const key = (s: ModelStatistics) => `${s.name}\u0000${s.version}`;
  const earlier = new Map(before.map((s) => [key(s), s]));
  const rows: ServerModelBreakdown[] = [];
  for (const now of after) {
    const then = earlier.get(key(now));
    const d = (pick: (s: ModelStatistics) => StatisticDuration | undefined) =>
      durationDelta(pick(now), then && pick(then));
    const success = d((s) => s.inference_stats?.success);
    const fail = d((s) => s.inference_stats?.fail);
    if (success.count === 0 && fail.count === 0) continue;
    const executions = now.execution_count - (then?.execution_count ?? 0);
    const inferences = now.inference_count - (then?.inference_count ?? 0);
    const perRequest = (x: { count: number; ns: number }) => (x.count > 0 ? round3(x.ns / x.count / 1e6) : 0);
    rows.push({
      model: now.name,
      version: now.version,
      requests: success.count,
      failures: fail.count,
      executions,
      meanBatchSize: executions > 0 ? round3(inferences / executions) : 0,
      avgQueueMs: perRequest(d((s) => s.inference_stats?.queue)),
      avgComputeInputMs: perRequest(d((s) => s.inference_stats?.compute_input)),
      avgComputeInferMs: perRequest(d((s) => s.inference_stats?.compute_infer)),
      avgComputeOutputMs: perRequest(d((s) => s.inference_stats?.compute_output)),
      avgRequestMs: perRequest(success),
    });
  }
  return rows;
}

function durationDelta(now?: StatisticDuration, then?: StatisticDuration): { count: number; ns: number } {
  return { count: (now?.count ?? 0) - (then?.count ?? 0), ns: (now?.ns ?? 0) - (then?.ns ?? 0) };
}
