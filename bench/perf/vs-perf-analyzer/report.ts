/** vs-perf-analyzer's tables: one block per load point (perf_analyzer / each engine, with ratios) and the highest sustained rate. */
import type { Load, Measured, Point } from './figures.js';
import { ENGINES } from './settings.js';

function range(runs: Measured[] | undefined, key: keyof Measured): string {
  const values = (runs ?? []).map((r) => r[key]).filter((v): v is number => typeof v === 'number');
  return values.length < 2 ? '' : ` [${fmt(Math.min(...values))}–${fmt(Math.max(...values))}]`;
}

/** An open-loop rate is sustained when nearly all of it is served without a growing queue. */
function sustained(load: Load, m: Measured | undefined): boolean {
  return !!m && load.mode === 'request-rate' && m.throughput >= 0.97 * load.value && m.p99 < 25;
}

const ratio = (a?: number, b?: number) => (a !== undefined && b ? (a / b).toFixed(3) : '—');
const fmt = (v?: number, digits = 2) => (v === undefined ? '—' : v.toFixed(digits));

export function printPoint(p: Point): void {
  const label = `${p.variant} ${p.load.mode === 'concurrency' ? 'c=' : 'rate='}${p.load.value}`;
  if (p.error) console.log(`${label}: ${p.error.trim()}`);
  if (!p.perfAnalyzer && Object.keys(p.perf).length === 0) return;
  const a: Partial<Measured> = p.perfAnalyzer ?? {};
  const keys: [string, keyof Measured][] = [
    ['p50 ms', 'p50'],
    ['p99 ms', 'p99'],
    ['mean ms', 'mean'],
    ['server mean', 'serverMean'],
    ['outside server', 'outsideServer'],
    ['sim_llm batch', 'modelBatch'],
    ['wire p50', 'wireP50'],
    ['wire mean', 'wireMean'],
    ['own (mean)', 'ownMean'],
    ['req/s', 'throughput'],
    ['TTFT p50', 'ttftP50'],
    ['TTFT p99', 'ttftP99'],
    ['ITL p50', 'itlP50'],
    ['ITL p99', 'itlP99'],
    ['CPU µs/req', 'cpuUsPerRequest'],
  ];
  const rows = keys
    .filter(([, k]) => a[k] !== undefined || ENGINES.some((e) => p.perf[e]?.[k] !== undefined))
    .map(([name, k]) => {
      const x = a[k] as number | undefined;
      const perEngine = ENGINES.map((e) => {
        const y = p.perf[e]?.[k] as number | undefined;
        return `${e} ${fmt(y)}${range(p.repeats[e], k)} (×${ratio(y, x)})`;
      });
      return `${name} ${fmt(x)}${range(p.repeats.perf_analyzer, k)} / ${perEngine.join(' / ')}`;
    });
  const notes = ENGINES.flatMap((e) => {
    const m = p.perf[e];
    const out: string[] = [];
    if (m?.sendLagP99 !== undefined) out.push(`${e} send lag p99 ${fmt(m.sendLagP99)} ms`);
    if (m?.stable === false) out.push(`perf ${e} unstable`);
    return out;
  });
  if (a.stable === false) notes.push('perf_analyzer unstable');
  console.log(`${label}:\n  ${[...rows, ...notes].join('\n  ')}`);
}

/** The highest open-loop rate of the `fast` model each tool sustained. */
export function printHighestRates(points: Point[]): void {
  const rates = points.filter((p) => p.variant === 'fast' && p.load.mode === 'request-rate');
  const best = (measured: (p: Point) => Measured | undefined) =>
    Math.max(0, ...rates.filter((p) => sustained(p.load, measured(p))).map((p) => p.load.value));
  if (rates.length > 0) {
    console.log(
      `highest open-loop rate sustained (≥97% served, p99 < 25 ms): perf_analyzer ${best((p) => p.perfAnalyzer)}/s, ` +
        ENGINES.map((e) => `perf ${e} ${best((p) => p.perf[e])}/s`).join(', '),
    );
  }
}
