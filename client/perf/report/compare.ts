/**
 * `perf compare A.json B.json`: the change of each metric between two reports (runs or sweeps),
 * point by point, and whether it exceeds run-to-run noise.
 */
import type { PerfReport } from '../latencyTest.js';
import type { LoadSpec } from '../load/loadSpec.js';
import { METRICS } from '../metrics/metricTable.js';
import { pointValues, type SweepPoint, type SweepReport } from '../sweep.js';
import { round3 } from '../metrics/summary.js';

/** Noise assumed when a report has neither repeats nor windows to estimate it from (5%). */
export const DEFAULT_NOISE = 0.05;

export interface MetricDelta {
  /** Metric tag, or `tag.p50` / `tag.p99` for a distribution's percentiles. */
  key: string;
  unit: string;
  a: number;
  b: number;
  /** b − a. */
  delta: number;
  /** (b − a) / a; undefined when a is 0. */
  relative: number | undefined;
  /** How much the value varies between runs (absolute, same unit): the larger of the two reports'. */
  noise: number;
  /** Where the noise figure came from. */
  noiseFrom: 'repeats' | 'windows' | 'assumed';
  /** |delta| > noise. */
  significant: boolean;
}

export interface PointComparison {
  load: LoadSpec;
  deltas: MetricDelta[];
}

export interface Comparison {
  a: string;
  b: string;
  points: PointComparison[];
  /** Loads measured in only one of the two reports. */
  unmatched: LoadSpec[];
}

/**
 * Reads a report file's JSON as a sweep: a run or a sweep (`perf --export`, the VS Code latency
 * test's saved runs), or a run the VS Code extension saved before it wrote sweeps
 * (`triton-studio.latency-run`: one report per concurrency level).
 */
export function asComparable(report: unknown, name: string): SweepReport {
  const r = report as { kind?: string; reports?: unknown } | null;
  if (r?.kind === 'triton-studio.perf-sweep') return r as SweepReport;
  if (r?.kind === 'triton-studio.latency-run' && Array.isArray(r.reports) && r.reports.length > 0) {
    const runs = r.reports.map((run, i) => asComparable(run, `${name} (report ${i + 1})`).points[0]!);
    const first = r.reports[0] as PerfReport;
    return {
      kind: 'triton-studio.perf-sweep',
      formatVersion: 1,
      model: first.model,
      server: first.server,
      startedAt: first.startedAt,
      cancelled: false,
      points: runs,
    };
  }
  if (r?.kind === 'triton-studio.perf') {
    const run = r as PerfReport;
    if (!run.metrics)
      throw new Error(`${name} is a format-1 report without metrics: measure again to compare`);
    return {
      kind: 'triton-studio.perf-sweep',
      formatVersion: 1,
      model: run.model,
      server: run.server,
      startedAt: run.startedAt,
      cancelled: false,
      points: [{ load: run.load, runs: [run], confidence: {} }],
    };
  }
  throw new Error(`${name} is not a Triton Studio latency report (its kind is '${String(r?.kind)}')`);
}

export function compareReports(
  a: SweepReport,
  b: SweepReport,
  names: [string, string] = ['A', 'B'],
): Comparison {
  const points: PointComparison[] = [];
  const unmatched: LoadSpec[] = [];
  const byLoad = new Map(b.points.map((p) => [loadKey(p.load), p]));
  for (const pa of a.points) {
    const pb = byLoad.get(loadKey(pa.load));
    if (!pb) {
      unmatched.push(pa.load);
      continue;
    }
    byLoad.delete(loadKey(pa.load));
    points.push({ load: pa.load, deltas: comparePoint(pa, pb) });
  }
  unmatched.push(...[...byLoad.values()].map((p) => p.load));
  return { a: names[0], b: names[1], points, unmatched };
}

function loadKey(load: LoadSpec): string {
  return load.mode === 'concurrency' ? `c${load.concurrency}` : `r${load.rate}/${load.distribution}`;
}

const UNITS = new Map(METRICS.map((m) => [m.tag, m.unit as string]));

function comparePoint(a: SweepPoint, b: SweepPoint): MetricDelta[] {
  const va = meanValues(a);
  const vb = meanValues(b);
  const deltas: MetricDelta[] = [];
  for (const key of Object.keys(va)) {
    if (vb[key] === undefined || key.startsWith('benchmark_duration') || key.endsWith('_count')) continue;
    const x = va[key]!;
    const y = vb[key]!;
    const na = noiseOf(a, key, x);
    const nb = noiseOf(b, key, y);
    const noise = na.noise >= nb.noise ? na : nb;
    const delta = y - x;
    deltas.push({
      key,
      unit: UNITS.get(key.split('.')[0]!) ?? '',
      a: x,
      b: y,
      delta: round3(delta),
      relative: x !== 0 ? round3(delta / x) : undefined,
      noise: round3(noise.noise),
      noiseFrom: noise.from,
      significant: Math.abs(delta) > noise.noise,
    });
  }
  return deltas;
}

/** A point's value per key: the mean over its runs. */
function meanValues(point: SweepPoint): Record<string, number> {
  const runs = point.runs.map(pointValues);
  const out: Record<string, number> = {};
  for (const key of Object.keys(runs[0] ?? {})) {
    const xs = runs.map((r) => r[key]).filter((x): x is number => x !== undefined);
    out[key] = xs.reduce((s, x) => s + x, 0) / xs.length;
  }
  return out;
}

/**
 * Run-to-run noise of one value: the 95% confidence half-width over repeats; else the spread of
 * the measurement windows (throughput and mean latency vary that much from window to window);
 * else DEFAULT_NOISE of the value.
 */
function noiseOf(
  point: SweepPoint,
  key: string,
  value: number,
): { noise: number; from: MetricDelta['noiseFrom'] } {
  const ci = point.confidence[key];
  if (ci && ci.runs > 1) return { noise: ci.halfWidth, from: 'repeats' };
  const windows = point.runs[0]?.stability?.windows.filter((w) => w.requests > 0) ?? [];
  if (windows.length >= 3) {
    const spread = (xs: number[]) => {
      const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
      return Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1)) / mean;
    };
    const relative = Math.max(
      spread(windows.map((w) => w.throughput)),
      spread(windows.map((w) => w.avgLatencyMs)),
    );
    return { noise: Math.abs(value) * relative * 2, from: 'windows' };
  }
  return { noise: Math.abs(value) * DEFAULT_NOISE, from: 'assumed' };
}

export function formatComparison(c: Comparison): string {
  const lines: string[] = [];
  for (const point of c.points) {
    const load = point.load;
    lines.push(
      load.mode === 'concurrency' ? `concurrency ${load.concurrency}:` : `request rate ${load.rate}/s:`,
    );
    lines.push(
      `  ${'metric'.padEnd(40)} ${c.a.slice(-12).padStart(12)} ${c.b.slice(-12).padStart(12)}    change  noise`,
    );
    for (const d of point.deltas) {
      const change =
        d.relative === undefined
          ? `${d.delta}`
          : `${d.relative >= 0 ? '+' : ''}${(d.relative * 100).toFixed(1)}%`;
      lines.push(
        `  ${`${d.key} (${d.unit})`.padEnd(40)} ${fmt(d.a)} ${fmt(d.b)} ${change.padStart(9)}  ` +
          `±${d.noise} (${d.noiseFrom})${d.significant ? '  ← beyond noise' : ''}`,
      );
    }
  }
  for (const load of c.unmatched) {
    lines.push(
      `only in one report: ${load.mode === 'concurrency' ? `concurrency ${load.concurrency}` : `rate ${load.rate}/s`}`,
    );
  }
  return lines.join('\n');
}

function fmt(x: number): string {
  return (Math.round(x * 1000) / 1000).toString().padStart(12);
}
