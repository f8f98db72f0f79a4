/** Perf reports to test the report code with: a streamed run of one latency, and a sweep of runs. */
import type { PerfReport } from '../../client/perf/latencyTest.js';
import { computeMetrics, type RequestRecord } from '../../client/perf/metrics/metricTable.js';
import { asSweep } from '../../client/perf/report/htmlReport.js';
import type { SweepReport } from '../../client/perf/sweep.js';

/** A sweep of the given runs, one point each. */
export function sweep(runs: PerfReport[]): SweepReport {
  return { ...asSweep(runs[0]!), points: runs.map((r) => ({ load: r.load, runs: [r], confidence: {} })) };
}

/** A streamed run whose requests all took `latencyMs` with 4 one-token responses. */
export function run(latencyMs: number, concurrency = 1): PerfReport {
  const records: RequestRecord[] = Array.from({ length: 20 }, (_, i) => ({
    startMs: i * latencyMs,
    latencyMs,
    responseMs: [latencyMs / 4, latencyMs / 2, (3 * latencyMs) / 4, latencyMs],
    responseTokens: [1, 1, 1, 1],
  }));
  const context = { stream: true, openLoop: false, outputTokens: true, inputTokens: false };
  return {
    kind: 'triton-studio.perf',
    formatVersion: 2,
    model: 'm',
    server: '127.0.0.1:1',
    startedAt: '2026-11-23T00:00:00Z',
    load: { mode: 'concurrency', concurrency, requests: 20, warmupRequests: 0 },
    stream: true,
    prompt: 'p',
    results: {} as PerfReport['results'],
    metrics: computeMetrics({ records, durationS: (20 * latencyMs) / 1000, context }),
    records,
    serverBreakdown: [],
  };
}
