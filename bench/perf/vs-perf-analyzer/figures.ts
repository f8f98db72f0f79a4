/** vs-perf-analyzer's figures: what a tool measured at one load point, and how runs and the server's side combine. */
import { LatencyRecorder } from '../../../client/perf/metrics/summary.js';
import type { Engine } from './settings.js';

/** The three timings of the bench model (prepare.ts). */
export type Variant = 'latency' | 'stream' | 'fast';
/** One load point: a fixed concurrency or an open-loop request rate. */
export interface Load {
  mode: 'concurrency' | 'request-rate';
  value: number;
}

/** What one tool measured at one load point (ms, requests/s, µs of CPU per request). */
export interface Measured {
  p50: number;
  p99: number;
  mean: number;
  /** The server's own mean time per request of the ensemble over the tool's run (its statistics). */
  serverMean?: number;
  /** mean − serverMean: what lies outside the server (client and transport), as the tool times it. */
  outsideServer?: number;
  /** sim_llm's mean batch size over the tool's run (inferences ÷ executions). */
  modelBatch?: number;
  /** --wire: the same requests' p50 and mean latency on the wire (a packet capture of the server's port). */
  wireP50?: number;
  wireMean?: number;
  /**
   * mean − wire mean: the tool's own share of the latency it reports (its clock outside the wire).
   * Means, not p50s: with batching the latencies are bimodal, and a p50 jumps between the modes.
   */
  ownMean?: number;
  throughput: number;
  ttftP50?: number;
  ttftP99?: number;
  itlP50?: number;
  itlP99?: number;
  cpuUsPerRequest?: number;
  /** perf: send lateness p99 (ms) in request-rate mode. */
  sendLagP99?: number;
  stable?: boolean;
}

export interface Point {
  variant: Variant;
  load: Load;
  /** The median of each figure over the repeats. */
  perfAnalyzer?: Measured;
  /** perf per engine, medians over the repeats. */
  perf: Partial<Record<Engine, Measured>>;
  /** Every repeat, per tool ('perf_analyzer' or the engine). */
  repeats: Record<string, Measured[]>;
  error?: string;
}

/** Each figure's median over the runs (the runs' own figures are kept in Point.repeats). */
export function medianOf(runs: Measured[]): Measured | undefined {
  if (runs.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(runs[0]!) as (keyof Measured)[]) {
    if (key === 'stable') {
      out.stable = runs.every((r) => r.stable !== false);
      continue;
    }
    const values = runs.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    out[key] = values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  }
  return out as unknown as Measured;
}

export function withServer(
  mean: number,
  server: Pick<Measured, 'serverMean' | 'modelBatch'>,
): Pick<Measured, 'serverMean' | 'outsideServer' | 'modelBatch'> {
  return {
    ...server,
    outsideServer: server.serverMean === undefined ? undefined : mean - server.serverMean,
  };
}

export function percentile(values: number[], p: number): number {
  const r = new LatencyRecorder();
  for (const v of values) r.record(v);
  const s = r.stats();
  r.destroy();
  return (p === 50 ? s.p50 : s.p99)!;
}
