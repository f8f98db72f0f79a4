/**
 * The batching study's report as text (terminal) and as one self-contained HTML page, drawn the
 * way perf's report is (client/perf/report/htmlReport.ts: data and chart.js inlined, no CDN).
 */
import { chartJsSource, escapeHtml, jsonForHtml } from '../perf/report/htmlPage.js';
import type { BatchingStudyReport } from './batching.js';

export function formatStudyReport(report: BatchingStudyReport): string {
  const w = report.workload;
  const lines = [
    `Batching study on ${report.server}: Poisson arrivals from ${w.startRate}/s doubling to saturation, ` +
      `${w.stepS} s per step, requested tokens ${w.minTokens}–${w.maxTokens}, seed ${w.seed}` +
      (report.cancelled ? ' (cancelled)' : ''),
    ...(report.target && report.target.engine !== 'sim-llm' ? [targetLine(report)] : []),
    '',
    'mode      offered/s  served/s  tokens/s  p50 ms    ms/token p50  errors',
  ];
  for (const m of report.modes) {
    for (const s of m.steps) {
      const metric = (tag: string, field: 'avg' | 'p50' = 'avg') => s.metrics[tag]?.[field] ?? 0;
      lines.push(
        [
          m.mode.padEnd(9),
          String(s.rate).padStart(9),
          metric('request_throughput').toFixed(1).padStart(9),
          metric('output_token_throughput').toFixed(0).padStart(9),
          metric('request_latency', 'p50').toFixed(1).padStart(9),
          metric('request_latency_per_output_token', 'p50').toFixed(2).padStart(13),
          String(metric('error_request_count')).padStart(7),
        ].join(' ') + (s.saturated ? '  saturated' : ''),
      );
    }
  }
  lines.push('');
  for (const f of report.findings) {
    const values = Object.entries(f.values)
      .map(([mode, v]) => `${mode} ${v}`)
      .join(', ');
    lines.push(`${f.holds ? 'holds' : 'DOES NOT HOLD'}: ${f.claim} (${f.basis}; ${f.unit}: ${values})`);
  }
  return lines.join('\n');
}

export interface StudyHtmlOptions {
  title?: string;
  /** chart.js's UMD build; by default read from the installed package (or a copy beside the bundle). */
  chartJs?: string;
  /** A CSP nonce for the inline scripts. */
  nonce?: string;
}

/** A real model's target as one line: the engine and its settings. */
function targetLine(report: BatchingStudyReport): string {
  const { engine, ...settings } = report.target!;
  return `${engine}: ${Object.entries(settings)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`;
}

export function renderStudyHtml(report: BatchingStudyReport, options: StudyHtmlOptions = {}): string {
  const title = options.title ?? 'Batching study: none vs static vs dynamic vs in-flight';
  const nonce = options.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : '';
  const w = report.workload;
  const m = report.model;
  const findings = report.findings
    .map(
      (f) =>
        `<li class="${f.holds ? 'ok' : 'warn'}"><b>${f.holds ? 'holds' : 'does not hold'}</b>: ${escapeHtml(f.claim)} ` +
        `(${escapeHtml(f.basis)}; ${escapeHtml(f.unit)}: ${escapeHtml(
          Object.entries(f.values)
            .map(([mode, v]) => `${mode} ${v}`)
            .join(', '),
        )})</li>`,
    )
    .join('\n');
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
.ok { color: #161; } .warn { color: #a50; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(report.server)} · started ${escapeHtml(report.startedAt)}${report.cancelled ? ' · <span class="warn">cancelled</span>' : ''}</p>
<p>Workload: Poisson arrivals from ${w.startRate} request/s doubling every ${w.stepS} s until a mode serves under 80% of
the offered rate; requested tokens uniform in ${w.minTokens}–${w.maxTokens}; seed ${w.seed}.
${
  report.target && report.target.engine !== 'sim-llm'
    ? escapeHtml(targetLine(report))
    : `${w.promptWords}-token prompts. sim-llm: prefill ${m.prefillUsPerToken} µs/token, decode step ${m.decodeUsPerStep} µs × (1 + ${m.batchCostFactor} × (rows − 1)),
at most ${m.maxBatch} rows, static timeout ${m.staticTimeoutUs} µs, dynamic queue delay ${m.maxQueueDelayUs} µs.`
}</p>
<ul>${findings}</ul>
<div class="grid">
<div><h2>Throughput vs offered load</h2><div class="chart"><canvas id="throughput"></canvas></div></div>
<div><h2>Latency per output token vs offered load (mean)</h2><div class="chart"><canvas id="per-token"></canvas></div></div>
<div><h2>Latency vs requested tokens (highest common load)</h2><div class="chart"><canvas id="by-tokens"></canvas></div></div>
<div><h2>Request latency p50 / p99 vs offered load</h2><div class="chart"><canvas id="latency"></canvas></div></div>
</div>
<script${nonce}>${(options.chartJs ?? chartJsSource()).replaceAll('</script', '<\\/script')}</script>
<script${nonce} type="application/json" id="report-data">${jsonForHtml(report)}</script>
<script${nonce}>${CHARTS_SCRIPT}</script>
</body>
</html>
`;
}

/** Runs in the page: reads the embedded report and draws the charts. Plain ES2020, no imports. */
const CHARTS_SCRIPT = String.raw`
(() => {
  const report = JSON.parse(document.getElementById('report-data').textContent);
  const colors = { none: '#7f7f7f', static: '#d62728', dynamic: '#ff7f0e', inflight: '#2ca02c' };
  const chart = (id, datasets, xTitle, yTitle, logX) =>
    new Chart(document.getElementById(id), {
      type: 'line',
      data: { datasets: datasets.map((d) => ({ borderColor: d.color, backgroundColor: d.color, tension: 0, ...d })) },
      options: { maintainAspectRatio: false, animation: false, parsing: false,
        scales: { x: { type: logX ? 'logarithmic' : 'linear', title: { display: true, text: xTitle } },
                  y: { beginAtZero: true, title: { display: true, text: yTitle } } } },
    });
  const perMode = (value, suffix = '', extra = {}) => report.modes.map((m) => ({
    label: m.mode + suffix, color: colors[m.mode],
    data: m.steps.map((s) => ({ x: s.rate, y: value(s) })).filter((p) => p.y !== undefined), ...extra }));
  chart('throughput', perMode((s) => s.metrics.request_throughput.avg), 'offered requests/s', 'served requests/s', true);
  chart('per-token', perMode((s) => s.metrics.request_latency_per_output_token?.avg), 'offered requests/s', 'ms per output token', true);
  chart('latency', [
    ...perMode((s) => s.metrics.request_latency?.p50, ' p50'),
    ...perMode((s) => s.metrics.request_latency?.p99, ' p99', { borderDash: [4, 4] }),
  ], 'offered requests/s', 'ms', true);
  // Mean latency per bin of 20 requested tokens, at the highest rate every mode was measured at.
  const common = Math.min(...report.modes.filter((m) => m.steps.length).map((m) => m.steps[m.steps.length - 1].rate));
  const width = Math.max(1, Math.ceil((report.workload.maxTokens - report.workload.minTokens + 1) / 10));
  chart('by-tokens', report.modes.map((m) => {
    const step = m.steps.find((s) => s.rate === common);
    const bins = new Map();
    for (const r of step ? step.requests : []) {
      const b = Math.floor((r.requestedTokens - report.workload.minTokens) / width);
      const bin = bins.get(b) || { n: 0, sum: 0 };
      bin.n++; bin.sum += r.latencyMs; bins.set(b, bin);
    }
    const data = [...bins.entries()].sort((a, b) => a[0] - b[0])
      .map(([b, v]) => ({ x: report.workload.minTokens + b * width + (width - 1) / 2, y: v.sum / v.n }));
    return { label: m.mode + ' @ ' + common + '/s', color: colors[m.mode], data };
  }), 'requested tokens', 'mean request latency (ms)', false);
})();
`;
