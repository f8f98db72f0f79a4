/**
 * The latency report's one chart specification: which charts a report has, their titles, data
 * series and units, computed from perf's reports. Pure data (no DOM, no chart library): the HTML
 * report (`htmlReport.ts`) embeds what this returns and its page script (`reportPage.mts`) draws it,
 * and the VS Code latency report shows that same page, so a chart added here appears in both.
 */
import type { PerfReport } from '../latencyTest.js';
import type { LoadSpec } from '../load/loadSpec.js';
import { isDistribution, METRICS, PERCENTILE_FIELDS, type MetricResult } from '../metrics/metricTable.js';
import type { SweepReport } from '../sweep.js';
import type { ServerModelBreakdown } from '../metrics/serverStats.js';

/** One run of the report: a `perf` sweep (or single run), with the name it is shown under. */
export interface LabelledReport {
  label: string;
  report: SweepReport;
}

export interface ChartSeries {
  label: string;
  /** One value per x label; null where the run has no value. */
  data: (number | null)[];
  /** The right-hand axis (`y1`) instead of the left one. */
  right?: boolean;
}

export interface ChartSpec {
  /** Stable id (the element ids of the page, the tests). */
  id: string;
  title: string;
  type: 'line' | 'bar';
  /** What the chart shows, e.g. the load level a single-load chart was measured at. */
  subtitle?: string;
  x: { title?: string; labels: string[] };
  /** Axis titles carry the unit. */
  y: { title: string };
  y1?: { title: string };
  /** Bars stacked (parts of one whole), and drawn horizontally. */
  stacked?: boolean;
  horizontal?: boolean;
  series: ChartSeries[];
  /** Why the chart has no data in this run (shown in its place, so side-by-side runs line up). */
  empty?: string;
}

/** One row of the summary table: a metric, its value at each load level. */
export interface SummaryRow {
  tag: string;
  label: string;
  /** The metric's formula (the row's tooltip). */
  formula: string;
  cells: string[];
}

export interface RunDocument {
  label: string;
  /** Model, server, streaming, max tokens, start time. */
  description: string;
  /** Load levels, the columns of the summary table and the x axis of the load charts. */
  loads: string[];
  summary: SummaryRow[];
  /** Things the reader must know: cancelled, never stable, failed requests. */
  warnings: string[];
  charts: ChartSpec[];
}

/** Everything the report page draws, as JSON. */
export interface ReportDocument {
  kind: 'triton-studio.latency-report-page';
  title: string;
  runs: RunDocument[];
}

/** Bins of the over-time chart: at most 20, and about 5 completions each (fewer are noise). */
const MAX_TIME_BINS = 20;
const COMPLETIONS_PER_BIN = 5;

export function loadLabel(load: LoadSpec): string {
  return load.mode === 'concurrency' ? `c=${load.concurrency}` : `${load.rate} req/s`;
}

/** A load point's charted run: the first of its repeats (the summary's confidence intervals cover the rest). */
const charted = (report: SweepReport): PerfReport[] => report.points.map((p) => p.runs[0]!).filter(Boolean);

type ChartBuilder = (runs: PerfReport[], loads: string[]) => Omit<ChartSpec, 'id' | 'title'>;

/** The charts of every report, in page order. Add a chart here and both reports draw it. */
export const REPORT_CHARTS: readonly { id: string; title: string; build: ChartBuilder }[] = [
  { id: 'latency-vs-load', title: 'Latency percentiles vs load', build: latencyVsLoad },
  { id: 'throughput-vs-load', title: 'Throughput vs load', build: throughputVsLoad },
  {
    id: 'ttft-distribution',
    title: 'TTFT distribution',
    build: (runs, loads) => distribution(runs, loads, 'time_to_first_token'),
  },
  {
    id: 'itl-distribution',
    title: 'ITL distribution',
    build: (runs, loads) => distribution(runs, loads, 'inter_token_latency'),
  },
  { id: 'over-time', title: 'Throughput and latency over time', build: overTime },
  { id: 'server-steps', title: 'Server time per request, by step', build: serverSteps },
  { id: 'batch-sizes', title: 'Mean batch size, by step', build: batchSizes },
  { id: 'pending-requests', title: 'Pending requests, by step', build: pendingRequests },
];

/** The charts of one report (sweep or single run), in REPORT_CHARTS order. */
export function reportCharts(report: SweepReport): ChartSpec[] {
  const runs = charted(report);
  const loads = runs.map((r) => loadLabel(r.load));
  return REPORT_CHARTS.map(({ id, title, build }) => ({ id, title, ...build(runs, loads) }));
}

/** The whole page: one run, or several side by side. */
export function reportDocument(runs: LabelledReport[], title?: string): ReportDocument {
  if (runs.length === 0) throw new Error('a latency report needs at least one run');
  return {
    kind: 'triton-studio.latency-report-page',
    title: title ?? reportTitle(runs),
    runs: runs.map(runDocument),
  };
}

export function reportTitle(runs: LabelledReport[]): string {
  return runs.length === 1
    ? `Latency report: ${runs[0]!.report.model}`
    : `Latency report: ${runs.map((r) => r.label).join(' vs ')}`;
}

function runDocument({ label, report }: LabelledReport): RunDocument {
  const runs = charted(report);
  const loads = runs.map((r) => loadLabel(r.load));
  const first = runs[0];
  const description = [
    `${report.model} @ ${report.server}`,
    first ? (first.stream ? 'streamed' : 'not streamed') : undefined,
    first?.endpoint,
    first?.maxTokens !== undefined ? `max_tokens ${first.maxTokens}` : undefined,
    `started ${report.startedAt}`,
    `${report.points.length} load point(s)`,
  ]
    .filter(Boolean)
    .join(' · ');
  const all = report.points.flatMap((p) => p.runs);
  const warnings: string[] = [];
  if (report.cancelled) warnings.push('Cancelled: only the points measured before it are shown.');
  if (all.some((r) => r.stability && !r.stability.stable))
    warnings.push('Some runs never became stable (their last windows disagreed by more than the tolerance).');
  const failed = all.reduce((n, r) => n + (r.results?.errors ?? 0), 0);
  if (failed > 0)
    warnings.push(
      `${failed} request(s) failed: ${all
        .flatMap((r) => r.results.errorMessages)
        .slice(0, 3)
        .join('; ')}`,
    );
  for (const stopped of new Set(all.map((r) => r.results?.stoppedEarly).filter(Boolean)))
    warnings.push(`Stopped early: ${stopped}`);
  return { label, description, loads, summary: summary(runs), warnings, charts: reportCharts(report) };
}

/** Every metric of the metric table that some load measured: distributions as p50 / p99. */
function summary(runs: PerfReport[]): SummaryRow[] {
  return METRICS.filter((m) => runs.some((r) => measuredMetric(r, m.tag))).map((m) => ({
    tag: m.tag,
    label: `${m.header} (${m.unit})`,
    formula: m.formula,
    cells: runs.map((r) => {
      const result = measuredMetric(r, m.tag);
      if (!result) return '–';
      return isDistribution(result) ? `${result.p50} / ${result.p99}` : String(result.avg);
    }),
  }));
}

/** A metric the run measured: a distribution of no values (ITL when every answer was one token) is not. */
function measuredMetric(run: PerfReport, tag: string): MetricResult | undefined {
  const result = run.metrics?.[tag];
  return result && (!isDistribution(result) || result.count > 0) ? result : undefined;
}

function metricValue(run: PerfReport, tag: string, field: 'avg' | 'p50' | 'p90' | 'p99'): number | null {
  return measuredMetric(run, tag)?.[field] ?? null;
}

function latencyVsLoad(runs: PerfReport[], loads: string[]): Omit<ChartSpec, 'id' | 'title'> {
  const wanted: [string, 'p50' | 'p90' | 'p99', string][] = [
    ['request_latency', 'p50', 'request latency p50'],
    ['request_latency', 'p90', 'request latency p90'],
    ['request_latency', 'p99', 'request latency p99'],
    ['time_to_first_token', 'p50', 'TTFT p50'],
    ['time_to_first_token', 'p99', 'TTFT p99'],
    ['inter_token_latency', 'p50', 'ITL p50'],
  ];
  const series = wanted
    .filter(([tag]) => runs.some((r) => measuredMetric(r, tag)))
    .map(([tag, field, label]) => ({ label, data: runs.map((r) => metricValue(r, tag, field)) }));
  return {
    type: 'line',
    x: { title: 'load', labels: loads },
    y: { title: 'ms' },
    series,
    empty: series.length === 0 ? 'No request completed.' : undefined,
  };
}

function throughputVsLoad(runs: PerfReport[], loads: string[]): Omit<ChartSpec, 'id' | 'title'> {
  const series: ChartSeries[] = [
    { label: 'requests/s', data: runs.map((r) => metricValue(r, 'request_throughput', 'avg')) },
  ];
  const tokens = runs.some((r) => measuredMetric(r, 'output_token_throughput'));
  if (tokens)
    series.push({
      label: 'output tokens/s',
      data: runs.map((r) => metricValue(r, 'output_token_throughput', 'avg')),
      right: true,
    });
  return {
    type: 'line',
    x: { title: 'load', labels: loads },
    y: { title: 'requests/s' },
    y1: tokens ? { title: 'output tokens/s' } : undefined,
    series,
  };
}

function distribution(runs: PerfReport[], loads: string[], tag: string): Omit<ChartSpec, 'id' | 'title'> {
  const series = runs.flatMap((r, i) => {
    const result = measuredMetric(r, tag);
    return result && isDistribution(result)
      ? [{ label: loads[i]!, data: PERCENTILE_FIELDS.map((p) => result[p]) }]
      : [];
  });
  return {
    type: 'line',
    x: { title: 'percentile', labels: [...PERCENTILE_FIELDS] },
    y: { title: 'ms' },
    series,
    empty:
      series.length > 0
        ? undefined
        : runs.some((r) => r.stream)
          ? 'No request produced enough output tokens.'
          : 'Needs a streamed run (perf --stream).',
  };
}

/** The heaviest load's completions binned over time, else its measurement windows. */
function overTime(runs: PerfReport[], loads: string[]): Omit<ChartSpec, 'id' | 'title'> {
  const last = runs[runs.length - 1];
  const base = {
    type: 'line' as const,
    subtitle: last ? loads[loads.length - 1] : undefined,
    x: { title: 'time since the measurement started (s)', labels: [] as string[] },
    y: { title: 'requests/s' },
    y1: { title: 'mean latency (ms)' },
  };
  const records = (last?.records ?? []).filter((r) => r.error === undefined);
  if (records.length > 0) {
    const end = Math.max(...records.map((r) => r.startMs + r.latencyMs));
    const bins = Math.max(1, Math.min(MAX_TIME_BINS, Math.floor(records.length / COMPLETIONS_PER_BIN)));
    const width = end / bins || 1;
    const count = new Array<number>(bins).fill(0);
    const sum = new Array<number>(bins).fill(0);
    for (const r of records) {
      // Bin i holds completions in (i·width, (i+1)·width]: the last one ends the last bin.
      const bin = Math.max(0, Math.min(bins - 1, Math.ceil((r.startMs + r.latencyMs) / width) - 1));
      count[bin]!++;
      sum[bin]! += r.latencyMs;
    }
    return {
      ...base,
      x: { ...base.x, labels: count.map((_, i) => round(((i + 1) * width) / 1000, 2).toString()) },
      series: [
        { label: 'requests/s', data: count.map((c) => round(c / (width / 1000), 1)) },
        {
          label: 'mean latency (ms)',
          data: count.map((c, i) => (c ? round(sum[i]! / c, 3) : null)),
          right: true,
        },
      ],
    };
  }
  const windows = last?.stability?.windows ?? [];
  if (windows.length > 0)
    return {
      ...base,
      x: { ...base.x, labels: windows.map((w) => String(w.endS)) },
      series: [
        { label: 'requests/s', data: windows.map((w) => w.throughput) },
        { label: 'mean latency (ms)', data: windows.map((w) => w.avgLatencyMs), right: true },
      ],
    };
  return {
    ...base,
    series: [],
    empty: 'Needs per-request records (perf --html keeps them) or measurement windows (perf --windows).',
  };
}

/**
 * A run's per-step rows. The model the client called is left out when it has steps: an
 * ensemble's (or orchestrator's) statistics hold its steps' time, so its row beside theirs would
 * count that time twice.
 */
function stepRows(run: PerfReport | undefined): ServerModelBreakdown[] {
  const rows = run?.serverBreakdown ?? [];
  const steps = rows.filter((s) => s.model !== run!.model);
  return steps.length > 0 ? steps : rows;
}

/** Where each step's time goes at the heaviest load: queue and the three compute phases. */
function serverSteps(runs: PerfReport[], loads: string[]): Omit<ChartSpec, 'id' | 'title'> {
  const steps = stepRows(runs[runs.length - 1]);
  const part = (label: string, pick: (s: (typeof steps)[number]) => number) => ({
    label,
    data: steps.map(pick),
  });
  return {
    type: 'bar',
    subtitle: loads[loads.length - 1],
    x: { labels: steps.map((s) => s.model) },
    y: { title: 'ms per request' },
    stacked: true,
    horizontal: true,
    series: [
      part('queue', (s) => s.avgQueueMs),
      part('compute input', (s) => s.avgComputeInputMs),
      part('compute infer', (s) => s.avgComputeInferMs),
      part('compute output', (s) => s.avgComputeOutputMs),
    ],
    empty: steps.length === 0 ? "The server's statistics were not available." : undefined,
  };
}

function stepModels(runs: PerfReport[]): string[] {
  return [...new Set(runs.flatMap((r) => stepRows(r).map((s) => s.model)))];
}

/** Mean batch size = inference count / execution count, per step and load. */
function batchSizes(runs: PerfReport[], loads: string[]): Omit<ChartSpec, 'id' | 'title'> {
  const models = stepModels(runs);
  return {
    type: 'bar',
    x: { title: 'load', labels: loads },
    y: { title: 'inferences / execution' },
    series: models.map((m) => ({
      label: m,
      data: runs.map((r) => r.serverBreakdown?.find((s) => s.model === m)?.meanBatchSize ?? null),
    })),
    empty: models.length === 0 ? "The server's statistics were not available." : undefined,
  };
}

/** Requests waiting in each step's queue (Prometheus), mean over the run, per load. */
function pendingRequests(runs: PerfReport[], loads: string[]): Omit<ChartSpec, 'id' | 'title'> {
  const models = stepModels(runs);
  const pending = (r: PerfReport, m: string) =>
    r.serverBreakdown?.find((s) => s.model === m)?.pendingRequests?.avg ?? null;
  const measured = runs.some((r) => models.some((m) => pending(r, m) !== null));
  const error = runs.find((r) => r.metricsError)?.metricsError;
  return {
    type: 'bar',
    x: { title: 'load', labels: loads },
    y: { title: 'mean requests waiting' },
    series: measured ? models.map((m) => ({ label: m, data: runs.map((r) => pending(r, m)) })) : [],
    empty: measured
      ? undefined
      : error
        ? `Prometheus metrics failed: ${error}`
        : "Needs the server's Prometheus metrics (perf --metrics-url).",
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
