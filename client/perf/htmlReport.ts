/**
 * A self-contained HTML report of a latency test or sweep: the data and chart.js are inlined (no
 * CDN), so the file opens offline and the VS Code latency report webview renders the same page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromPackageRoot } from '../paths.js';
import type { PerfReport } from './latencyTest.js';
import { METRICS } from './metrics.js';
import type { SweepReport } from './sweep.js';

export interface HtmlReportOptions {
  title?: string;
  /** chart.js's UMD build; by default read from the installed package (or a copy beside the bundle). */
  chartJs?: string;
  /** A CSP nonce for the inline scripts (VS Code webviews allow only scripts that carry it). */
  nonce?: string;
}

/** Renders a sweep (or one run) as one HTML document. */
export function renderHtmlReport(report: SweepReport | PerfReport, options: HtmlReportOptions = {}): string {
  const sweep = asSweep(report);
  const title = options.title ?? `Latency report: ${sweep.model}`;
  const nonce = options.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : '';
  const metricTable = METRICS.map((m) => ({
    tag: m.tag,
    header: m.header,
    unit: m.unit,
    formula: m.formula,
  }));
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin-top: 2rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1.5rem; }
.chart { position: relative; height: 300px; }
table { border-collapse: collapse; font-size: 0.85rem; } td, th { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.warn { color: #a50; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(sweep.server)} · started ${escapeHtml(sweep.startedAt)} · ${sweep.points.length} load point(s)${sweep.cancelled ? ' · <span class="warn">cancelled</span>' : ''}</p>
<div id="summary"></div>
<div class="grid">
<div><h2>Latency percentiles vs load</h2><div class="chart"><canvas id="latency-vs-load"></canvas></div></div>
<div><h2>Throughput vs load</h2><div class="chart"><canvas id="throughput-vs-load"></canvas></div></div>
<div><h2>TTFT distribution</h2><div class="chart"><canvas id="ttft-dist"></canvas></div></div>
<div><h2>ITL distribution</h2><div class="chart"><canvas id="itl-dist"></canvas></div></div>
<div><h2>Throughput and latency over time</h2><div class="chart"><canvas id="over-time"></canvas></div></div>
<div><h2>Server time per request, by step</h2><div class="chart"><canvas id="server-steps"></canvas></div></div>
<div><h2>Mean batch size, by step</h2><div class="chart"><canvas id="batch-sizes"></canvas></div></div>
<div id="pending-section"><h2>Pending requests (Prometheus), by step</h2><div class="chart"><canvas id="pending"></canvas></div></div>
</div>
<script${nonce}>${(options.chartJs ?? chartJsSource()).replaceAll('</script', '<\\/script')}</script>
<script${nonce} type="application/json" id="report-data">${jsonForHtml({ sweep, metrics: metricTable })}</script>
<script${nonce}>${CHARTS_SCRIPT}</script>
</body>
</html>
`;
}

function asSweep(report: SweepReport | PerfReport): SweepReport {
  if (report.kind === 'triton-studio.perf-sweep') return report;
  return {
    kind: 'triton-studio.perf-sweep',
    formatVersion: 1,
    model: report.model,
    server: report.server,
    startedAt: report.startedAt,
    cancelled: false,
    points: [{ load: report.load, runs: [report], confidence: {} }],
  };
}

let cachedChartJs: string | undefined;

/** chart.js's UMD build, from node_modules (sources, CLI) or beside the bundle (installed extension). */
export function chartJsSource(): string {
  if (cachedChartJs) return cachedChartJs;
  const candidates = [
    fromPackageRoot('node_modules', 'chart.js', 'dist', 'chart.umd.min.js'),
    join(__dirname, 'chart.umd.min.js'),
  ];
  const file = candidates.find((f) => existsSync(f));
  if (!file)
    throw new Error(`chart.js not found (looked at ${candidates.join(', ')}): reinstall Triton Studio`);
  // The source map is not shipped inside the report.
  return (cachedChartJs = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON inside a script element: `<` escaped so no `</script>` can end it early. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}

/** Runs in the page: reads the embedded data and draws the charts. Plain ES2020, no imports. */
const CHARTS_SCRIPT = String.raw`
(() => {
  const { sweep, metrics } = JSON.parse(document.getElementById('report-data').textContent);
  const header = Object.fromEntries(metrics.map((m) => [m.tag, m]));
  const level = (load) => (load.mode === 'concurrency' ? 'concurrency ' + load.concurrency : load.rate + ' req/s');
  const labels = sweep.points.map((p) => level(p.load));
  const first = (p) => p.runs[0];
  const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
  const line = (id, datasets, x, yTitle, xTitle) =>
    new Chart(document.getElementById(id), {
      type: 'line',
      data: { labels: x, datasets: datasets.map((d, i) => ({ borderColor: colors[i % colors.length], backgroundColor: colors[i % colors.length], tension: 0.2, ...d })) },
      options: { maintainAspectRatio: false, animation: false, scales: { y: { title: { display: true, text: yTitle }, beginAtZero: true }, x: { title: { display: !!xTitle, text: xTitle } } } },
    });
  const bars = (id, labelsX, datasets, yTitle, stacked) =>
    new Chart(document.getElementById(id), {
      type: 'bar',
      data: { labels: labelsX, datasets: datasets.map((d, i) => ({ backgroundColor: colors[i % colors.length], ...d })) },
      options: { maintainAspectRatio: false, animation: false, scales: { x: { stacked }, y: { stacked, beginAtZero: true, title: { display: true, text: yTitle } } } },
    });
  const stat = (tag, field) => sweep.points.map((p) => first(p).metrics[tag]?.[field] ?? null);

  // Summary table: every metric of the first run of each point.
  const rows = metrics.filter((m) => sweep.points.some((p) => first(p).metrics[m.tag]));
  const table = document.createElement('table');
  table.innerHTML = '<tr><th>metric</th>' + labels.map((l) => '<th>' + l + '</th>').join('') + '</tr>' +
    rows.map((m) => '<tr><td title="' + m.formula.replace(/"/g, '&quot;') + '">' + m.header + ' (' + m.unit + ')</td>' +
      sweep.points.map((p) => { const r = first(p).metrics[m.tag]; return '<td>' + (r ? (r.count !== undefined ? r.p50 + ' / ' + r.p99 : r.avg) : '') + '</td>'; }).join('') + '</tr>').join('');
  const note = document.createElement('p');
  note.textContent = 'Distributions show p50 / p99; single values as measured.' +
    (sweep.points.some((p) => p.runs.some((r) => r.stability && !r.stability.stable)) ? ' Some runs never became stable (last windows disagreed by more than the tolerance).' : '');
  document.getElementById('summary').append(table, note);

  const latencyDatasets = [['request_latency', 'p50'], ['request_latency', 'p90'], ['request_latency', 'p99'], ['time_to_first_token', 'p50'], ['time_to_first_token', 'p99'], ['inter_token_latency', 'p50']]
    .filter(([tag]) => sweep.points.some((p) => first(p).metrics[tag]))
    .map(([tag, field]) => ({ label: header[tag].header + ' ' + field, data: stat(tag, field) }));
  line('latency-vs-load', latencyDatasets, labels, 'ms');
  line('throughput-vs-load', [
    { label: 'requests/s', data: stat('request_throughput', 'avg'), yAxisID: 'y' },
    ...(sweep.points.some((p) => first(p).metrics.output_token_throughput) ? [{ label: 'output tokens/s', data: stat('output_token_throughput', 'avg'), yAxisID: 'y' }] : []),
  ], labels, 'per second');

  const percentiles = ['p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99'];
  const distribution = (id, tag) => line(id, sweep.points.filter((p) => first(p).metrics[tag]).map((p) => ({ label: level(p.load), data: percentiles.map((f) => first(p).metrics[tag][f]) })), percentiles, 'ms', 'percentile');
  distribution('ttft-dist', 'time_to_first_token');
  distribution('itl-dist', 'inter_token_latency');

  // Over time: the last point's records in 20 bins (or its measurement windows).
  const last = first(sweep.points[sweep.points.length - 1]);
  const records = last.records || [];
  if (records.length > 0) {
    const end = Math.max(...records.map((r) => r.startMs + r.latencyMs));
    const bins = 20, width = end / bins || 1;
    const count = new Array(bins).fill(0), sum = new Array(bins).fill(0);
    for (const r of records) { const b = Math.min(bins - 1, Math.floor((r.startMs + r.latencyMs) / width)); count[b]++; sum[b] += r.latencyMs; }
    line('over-time', [
      { label: 'requests/s', data: count.map((c) => c / (width / 1000)), yAxisID: 'y' },
      { label: 'mean latency (ms)', data: count.map((c, i) => (c ? sum[i] / c : null)), yAxisID: 'y1' },
    ], count.map((_, i) => ((i + 1) * width / 1000).toFixed(1) + ' s'), 'requests/s');
  } else if (last.stability) {
    line('over-time', [
      { label: 'requests/s', data: last.stability.windows.map((w) => w.throughput) },
      { label: 'mean latency (ms)', data: last.stability.windows.map((w) => w.avgLatencyMs) },
    ], last.stability.windows.map((w) => w.endS + ' s'), 'per window');
  }

  const steps = last.serverBreakdown || [];
  bars('server-steps', steps.map((s) => s.model), [
    { label: 'queue', data: steps.map((s) => s.avgQueueMs) },
    { label: 'compute input', data: steps.map((s) => s.avgComputeInputMs) },
    { label: 'compute infer', data: steps.map((s) => s.avgComputeInferMs) },
    { label: 'compute output', data: steps.map((s) => s.avgComputeOutputMs) },
  ], 'ms per request (' + labels[labels.length - 1] + ')', true);
  const models = [...new Set(sweep.points.flatMap((p) => (first(p).serverBreakdown || []).map((s) => s.model)))];
  bars('batch-sizes', labels, models.map((m) => ({ label: m, data: sweep.points.map((p) => (first(p).serverBreakdown || []).find((s) => s.model === m)?.meanBatchSize ?? null) })), 'inferences / execution', false);
  const pendingOf = (p, m) => (first(p).serverBreakdown || []).find((s) => s.model === m)?.pendingRequests?.avg ?? null;
  if (sweep.points.some((p) => models.some((m) => pendingOf(p, m) !== null))) {
    bars('pending', labels, models.map((m) => ({ label: m, data: sweep.points.map((p) => pendingOf(p, m)) })), 'mean requests waiting', false);
  } else {
    document.getElementById('pending-section').remove();
  }
})();
`;
