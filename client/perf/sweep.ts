/**
 * `runSweep`: the latency test over a list of loads, each point run several times, with a 95%
 * confidence interval per metric — the data of the report's charts and of `perf compare`.
 */
import type { TritonClient } from '../grpc/client.js';
import type { PromptTransport } from '../transports/types.js';
import { runLatencyTest, type LatencyTestOptions, type PerfReport } from './latencyTest.js';
import type { LoadSpec } from './load/loadSpec.js';
import { isDistribution, METRICS, type RequestRecord } from './metrics/metricTable.js';
import { round3 } from './metrics/summary.js';

export interface SweepOptions extends Omit<LatencyTestOptions, 'load' | 'onRecord'> {
  /** One load per point: `--concurrency 1,4,16` or `--request-rate 5,10,20`. */
  loads: LoadSpec[];
  /** Repeats of every point, for confidence intervals (default 1). */
  numRuns?: number;
  onProgress?: (progress: SweepProgress) => void;
}

export interface SweepProgress {
  /** 0-based point and run being measured, of `points` × `runs`. */
  point: number;
  points: number;
  run: number;
  runs: number;
  load: LoadSpec;
  /** Measured requests completed in this run so far, and how many failed. */
  completed: number;
  errors: number;
  /** The record that just completed (absent on the start-of-run call). */
  record?: RequestRecord;
  /** The finished run (on the end-of-run call). */
  report?: PerfReport;
}

/** A 95% confidence interval of a metric's mean over runs (Student's t). */
export interface ConfidenceInterval {
  mean: number;
  /** mean ± halfWidth covers the true mean with 95% confidence; 0 with one run. */
  halfWidth: number;
  runs: number;
}

export interface SweepPoint {
  load: LoadSpec;
  runs: PerfReport[];
  /** Per metric tag (distributions: their mean; `tag.p50`, `tag.p99` too), over the runs. */
  confidence: Record<string, ConfidenceInterval>;
}

/** Several loads (and repeats) measured in one run: `perf --concurrency 1,4,16 --num-runs 3`. */
export interface SweepReport {
  kind: 'triton-studio.perf-sweep';
  formatVersion: 1;
  model: string;
  server: string;
  startedAt: string;
  /** Ended early by the caller's signal: the points measured so far. */
  cancelled: boolean;
  points: SweepPoint[];
}

/** Runs every load `numRuns` times, one after another, reporting progress as requests complete. */
export async function runSweep(
  client: TritonClient | PromptTransport,
  options: SweepOptions,
): Promise<SweepReport> {
  const runs = options.numRuns ?? 1;
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`number of runs must be a whole number ≥ 1 (got ${runs})`);
  if (options.loads.length === 0) throw new Error('give at least one load (a concurrency or a request rate)');
  const { loads, numRuns: _, onProgress, ...test } = options;
  const report: SweepReport = {
    kind: 'triton-studio.perf-sweep',
    formatVersion: 1,
    model: options.model,
    server: client.url,
    startedAt: new Date().toISOString(),
    cancelled: false,
    points: [],
  };
  for (const [point, load] of loads.entries()) {
    const results: PerfReport[] = [];
    for (let run = 0; run < runs && !options.signal?.aborted; run++) {
      const base = { point, points: loads.length, run, runs, load };
      let completed = 0;
      let errors = 0;
      onProgress?.({ ...base, completed, errors });
      const result = await runLatencyTest(client, {
        ...test,
        load,
        onRecord: (record) => {
          completed++;
          if (record.error !== undefined) errors++;
          onProgress?.({ ...base, completed, errors, record });
        },
      });
      results.push(result);
      onProgress?.({ ...base, completed, errors, report: result });
    }
    if (results.length > 0) report.points.push({ load, runs: results, confidence: confidence(results) });
    if (options.signal?.aborted) break;
  }
  report.cancelled = options.signal?.aborted ?? false;
  return report;
}

/** The values a point's confidence intervals are taken over, per run. */
export function pointValues(run: PerfReport): Record<string, number> {
  const values: Record<string, number> = {};
  for (const m of METRICS) {
    const result = run.metrics[m.tag];
    if (!result) continue;
    values[m.tag] = result.avg;
    if (isDistribution(result)) {
      values[`${m.tag}.p50`] = result.p50;
      values[`${m.tag}.p99`] = result.p99;
    }
  }
  return values;
}

export function confidence(runs: PerfReport[]): Record<string, ConfidenceInterval> {
  const perRun = runs.map(pointValues);
  const out: Record<string, ConfidenceInterval> = {};
  for (const key of Object.keys(perRun[0] ?? {})) {
    const xs = perRun.map((v) => v[key]).filter((x): x is number => x !== undefined);
    out[key] = interval(xs);
  }
  return out;
}

/** Mean ± t(0.975, n−1) · s / √n. */
export function interval(xs: number[]): ConfidenceInterval {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / Math.max(n, 1);
  if (n < 2) return { mean: round3(mean), halfWidth: 0, runs: n };
  const s = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  return { mean: round3(mean), halfWidth: round3((tQuantile975(n - 1) * s) / Math.sqrt(n)), runs: n };
}

/** Student's t 97.5% quantiles for 1–30 degrees of freedom; the normal 1.96 beyond. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

function tQuantile975(df: number): number {
  return T975[df - 1] ?? 1.96;
}
