/**
 * Report files: JSON in GenAI-Perf / AIPerf's profile-export shape and CSV, for one run or a sweep.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Endpoint } from '../../transports/types.js';
import type { PerfReport } from '../latencyTest.js';
import type { LoadSpec } from '../load/loadSpec.js';
import type { LabelledReport } from './reportCharts.js';
import { isDistribution, METRICS, PERCENTILE_FIELDS, type MetricUnit } from '../metrics/metricTable.js';
import type { SweepReport } from '../sweep.js';

const GENAI_PERF_ENDPOINT_TYPES: Record<Endpoint, string> = {
  'grpc-stream': 'kserve',
  'grpc-infer': 'kserve',
  'http-infer': 'kserve',
  generate: 'generate',
  completions: 'completions',
  chat: 'chat',
};

/** GenAI-Perf writes per-second units out. */
const EXPORT_UNITS: Partial<Record<MetricUnit, string>> = {
  'requests/s': 'requests/sec',
  'tokens/s': 'tokens/sec',
};

const STAT_FIELDS = ['avg', 'min', 'max', ...PERCENTILE_FIELDS, 'std'] as const;

/** One run as GenAI-Perf's `profile_export_genai_perf.json`: metric tag → { unit, avg, min, …, std }, plus input_config. */
export function profileExport(report: PerfReport): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of METRICS) {
    const result = report.metrics[m.tag];
    if (!result) continue;
    const entry: Record<string, unknown> = { unit: EXPORT_UNITS[m.unit] ?? m.unit };
    for (const field of STAT_FIELDS) if (result[field] !== undefined) entry[field] = result[field];
    out[m.tag] = entry;
  }
  out.input_config = {
    model: [report.model],
    url: report.server,
    // GenAI-Perf's names: kserve (Triton's infer over gRPC or HTTP), generate, completions, chat.
    endpoint_type: GENAI_PERF_ENDPOINT_TYPES[report.endpoint ?? 'grpc-stream'],
    service_kind: report.endpoint === 'completions' || report.endpoint === 'chat' ? 'openai' : 'triton',
    tokenizer: report.tokenizer,
    streaming: report.stream,
    ...loadConfig(report.load),
    output_tokens_mean: report.maxTokens,
    warmup_request_count: report.load.warmupRequests,
  };
  return out;
}

function loadConfig(load: LoadSpec): Record<string, unknown> {
  const amount =
    load.requests !== undefined
      ? { request_count: load.requests }
      : { measurement_interval_s: load.durationS };
  return load.mode === 'concurrency'
    ? { concurrency: load.concurrency, ...amount }
    : {
        request_rate: load.rate,
        request_rate_distribution: load.distribution,
        random_seed: load.seed,
        ...amount,
      };
}

/** One run as GenAI-Perf's CSV: distributions (avg, min, max, percentiles), then single values. */
export function profileCsv(report: PerfReport): string {
  const distributions = [['Metric', ...STAT_FIELDS].join(',')];
  const values = ['Metric,Value'];
  for (const m of METRICS) {
    const result = report.metrics[m.tag];
    if (!result) continue;
    const name = csvCell(`${m.header} (${EXPORT_UNITS[m.unit] ?? m.unit})`);
    if (isDistribution(result)) distributions.push([name, ...STAT_FIELDS.map((f) => result[f])].join(','));
    else values.push(`${name},${result.avg}`);
  }
  return `${distributions.join('\n')}\n\n${values.join('\n')}\n`;
}

/** A sweep as one long table: a row per point, run and metric. */
export function sweepCsv(sweep: SweepReport): string {
  const rows = [['mode', 'load', 'run', 'metric', 'unit', ...STAT_FIELDS].join(',')];
  for (const point of sweep.points) {
    const level = point.load.mode === 'concurrency' ? point.load.concurrency : point.load.rate;
    point.runs.forEach((run, i) => {
      for (const m of METRICS) {
        const r = run.metrics[m.tag];
        if (!r) continue;
        rows.push(
          [point.load.mode, level, i + 1, m.tag, m.unit, ...STAT_FIELDS.map((f) => r[f] ?? '')].join(','),
        );
      }
    });
  }
  return `${rows.join('\n')}\n`;
}

/**
 * The CSV of what a latency report shows: one report as `perf --csv` writes it (one run:
 * GenAI-Perf's profile CSV; a sweep: one row per load, run and metric), several with the
 * report's label in a first column.
 */
export function reportCsv(runs: LabelledReport[]): string {
  if (runs.length === 1) {
    const { report } = runs[0]!;
    const single = report.points.length === 1 && report.points[0]!.runs.length === 1;
    return single ? profileCsv(report.points[0]!.runs[0]!) : sweepCsv(report);
  }
  const lines: string[] = [];
  for (const { label, report } of runs) {
    const [head, ...rows] = sweepCsv(report).trimEnd().split('\n');
    if (lines.length === 0) lines.push(`report,${head}`);
    lines.push(...rows.map((row) => `${csvCell(label)},${row}`));
  }
  return `${lines.join('\n')}\n`;
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes a file through a temporary one renamed into place, so a crash never leaves half a report. */
export function writeReportFile(file: string, content: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, content);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new Error(
      `cannot write the report to ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
