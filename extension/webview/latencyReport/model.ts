/**
 * What the latency report shows, computed from the latency test's reports (client/perf's
 * PerfReport JSON): pure data, no DOM, so the webview, the HTML and CSV exports and the tests
 * share it.
 */
import type { LatencySummary, PerfReport } from '../../../client/index.js';

/** One run: a single latency test, or a load sweep (one report per load level). */
export interface ReportRun {
  label: string;
  reports: PerfReport[];
}

/** The file a latency run is saved as; a bare PerfReport (the CLI's `--export`) reads as a run too. */
export interface LatencyRunFile {
  kind: 'triton-studio.latency-run';
  formatVersion: 1;
  reports: PerfReport[];
}

export function runFromJson(json: unknown, label: string): ReportRun {
  const value = json as { kind?: string; reports?: PerfReport[] } | undefined;
  if (value?.kind === 'triton-studio.latency-run' && Array.isArray(value.reports))
    return { label, reports: value.reports };
  if (value?.kind === 'triton-studio.perf') return { label, reports: [value as PerfReport] };
  throw new Error(
    `${label} is not a latency report: expected a Triton Studio latency run or a \`triton-studio perf --export\` file`,
  );
}

export function loadLabel(report: PerfReport): string {
  return report.load.mode === 'concurrency' ? `c=${report.load.concurrency}` : `${report.load.rate} req/s`;
}

export const PERCENTILES = ['p50Ms', 'p90Ms', 'p95Ms', 'p99Ms', 'maxMs'] as const;

export function percentileValues(summary: LatencySummary | undefined): number[] {
  return PERCENTILES.map((p) => summary?.[p] ?? 0);
}

/**
 * Requests completed per second over the run, from per-request records when the report kept them
 * (`startMs` + `latencyMs`); undefined otherwise.
 */
export function throughputOverTime(report: PerfReport): { second: number; completed: number }[] | undefined {
  const records = (
    report as PerfReport & { records?: { startMs: number; latencyMs: number; error?: string }[] }
  ).records;
  if (!records || records.length === 0) return undefined;
  const buckets = new Map<number, number>();
  for (const r of records) {
    if (r.error) continue;
    const second = Math.floor((r.startMs + r.latencyMs) / 1000);
    buckets.set(second, (buckets.get(second) ?? 0) + 1);
  }
  const last = Math.max(0, ...buckets.keys());
  return Array.from({ length: last + 1 }, (_, second) => ({ second, completed: buckets.get(second) ?? 0 }));
}

const CSV_COLUMNS = [
  'run',
  'model',
  'load',
  'requests',
  'errors',
  'requests_per_s',
  'latency_p50_ms',
  'latency_p90_ms',
  'latency_p99_ms',
  'ttft_p50_ms',
  'ttft_p99_ms',
  'itl_p50_ms',
  'itl_p99_ms',
  'output_tokens_per_s',
] as const;

/** One row per report (load level) of every run. */
export function reportCsv(runs: ReportRun[]): string {
  const quote = (v: unknown) => {
    const text = v === undefined ? '' : String(v);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const rows = runs.flatMap((run) =>
    run.reports.map((r) => [
      run.label,
      r.model,
      loadLabel(r),
      r.results.requests,
      r.results.errors,
      r.results.requestsPerSecond,
      r.results.latency.p50Ms,
      r.results.latency.p90Ms,
      r.results.latency.p99Ms,
      r.results.ttft?.p50Ms,
      r.results.ttft?.p99Ms,
      r.results.itl?.p50Ms,
      r.results.itl?.p99Ms,
      r.results.outputChunksPerSecond,
    ]),
  );
  return [CSV_COLUMNS.join(','), ...rows.map((row) => row.map(quote).join(','))].join('\n') + '\n';
}
