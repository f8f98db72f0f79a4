/**
 * The latency report page (runs in the webview, and in the exported HTML file): for each run the
 * charts of the latency lab — latency vs load, TTFT and ITL distributions, throughput over time,
 * the server's per-step breakdown and batch sizes — with two runs side by side when comparing.
 * Data comes from the page's `<script id="data">`; nothing is fetched.
 */
import { Chart, registerables, type ChartConfiguration } from 'chart.js';
import { loadLabel, percentileValues, PERCENTILES, throughputOverTime, type ReportRun } from './model.js';

Chart.register(...registerables);

interface PageData {
  runs: ReportRun[];
  /** False in the exported HTML file: no extension to talk to. */
  interactive: boolean;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const data = JSON.parse(document.getElementById('data')!.textContent!) as PageData;
const vscode = data.interactive ? acquireVsCodeApi() : undefined;
const COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1'];
const style = getComputedStyle(document.body);
Chart.defaults.color = style.getPropertyValue('--vscode-foreground') || '#444';
Chart.defaults.borderColor = style.getPropertyValue('--vscode-panel-border') || '#ddd';
Chart.defaults.animation = false;

const charts: { title: string; canvas: HTMLCanvasElement }[] = [];

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function chart(parent: HTMLElement, title: string, config: ChartConfiguration, note?: string): void {
  const box = el('div', { class: 'chart' });
  box.append(el('h4', {}, title));
  const canvas = el('canvas');
  box.append(canvas);
  if (note) box.append(el('div', { class: 'muted' }, note));
  parent.append(box);
  new Chart(canvas, {
    ...config,
    options: { responsive: true, maintainAspectRatio: false, ...config.options },
  });
  charts.push({ title, canvas });
}

const ms = { y: { beginAtZero: true, title: { display: true, text: 'ms' } } };

function renderRun(run: ReportRun, parent: HTMLElement): void {
  const section = el('section', { class: 'run' });
  const first = run.reports[0];
  section.append(el('h3', {}, run.label));
  if (!first) {
    section.append(el('p', {}, 'This run has no reports.'));
    parent.append(section);
    return;
  }
  const levels = run.reports.map(loadLabel);
  section.append(
    el(
      'p',
      { class: 'muted' },
      `${first.model} @ ${first.server} · ${first.stream ? 'streamed' : 'not streamed'} · max_tokens ${first.maxTokens ?? '–'} · ${new Date(first.startedAt).toLocaleString()}`,
    ),
  );
  const table = el('table');
  table.append(el('tr'));
  table.rows[0]!.append(
    ...['load', 'requests', 'errors', 'req/s', 'p50 ms', 'p99 ms', 'TTFT p50', 'ITL p50', 'tokens/s'].map(
      (h) => el('th', {}, h),
    ),
  );
  for (const r of run.reports) {
    const row = table.insertRow();
    for (const v of [
      loadLabel(r),
      r.results.requests,
      r.results.errors,
      r.results.requestsPerSecond,
      r.results.latency.p50Ms,
      r.results.latency.p99Ms,
      r.results.ttft?.p50Ms ?? '–',
      r.results.itl?.p50Ms ?? '–',
      r.results.outputChunksPerSecond ?? '–',
    ])
      row.insertCell().textContent = String(v);
  }
  section.append(table);

  chart(section, 'Latency vs load', {
    type: 'line',
    data: {
      labels: levels,
      datasets: [
        { label: 'p50', data: run.reports.map((r) => r.results.latency.p50Ms), borderColor: COLORS[0] },
        { label: 'p90', data: run.reports.map((r) => r.results.latency.p90Ms), borderColor: COLORS[1] },
        { label: 'p99', data: run.reports.map((r) => r.results.latency.p99Ms), borderColor: COLORS[2] },
        ...(first.stream
          ? [
              {
                label: 'TTFT p50',
                data: run.reports.map((r) => r.results.ttft?.p50Ms ?? 0),
                borderColor: COLORS[3],
              },
            ]
          : []),
      ],
    },
    options: { scales: ms },
  });
  const distribution = (
    title: string,
    pick: (r: (typeof run.reports)[number]) => Parameters<typeof percentileValues>[0],
  ) =>
    chart(
      section,
      title,
      {
        type: 'bar',
        data: {
          labels: PERCENTILES.map((p) => p.replace('Ms', '')),
          datasets: run.reports.map((r, i) => ({
            label: loadLabel(r),
            data: percentileValues(pick(r)),
            backgroundColor: COLORS[i % COLORS.length],
          })),
        },
        options: { scales: ms },
      },
      first.stream ? undefined : 'Needs a streamed run.',
    );
  distribution('Time to first token (percentiles)', (r) => r.results.ttft);
  distribution('Inter-token latency (percentiles)', (r) => r.results.itl);

  const overTime = run.reports.map(throughputOverTime);
  if (overTime.some((t) => t)) {
    const seconds = Math.max(...overTime.map((t) => t?.length ?? 0));
    chart(section, 'Throughput over time', {
      type: 'line',
      data: {
        labels: Array.from({ length: seconds }, (_, s) => `${s}s`),
        datasets: run.reports.map((r, i) => ({
          label: loadLabel(r),
          data: overTime[i]?.map((t) => t.completed) ?? [],
          borderColor: COLORS[i % COLORS.length],
        })),
      },
      options: {
        scales: { y: { beginAtZero: true, title: { display: true, text: 'requests completed / s' } } },
      },
    });
  } else {
    chart(
      section,
      'Throughput by load',
      {
        type: 'bar',
        data: {
          labels: levels,
          datasets: [
            {
              label: 'requests/s',
              data: run.reports.map((r) => r.results.requestsPerSecond),
              backgroundColor: COLORS[4],
            },
          ],
        },
        options: { scales: { y: { beginAtZero: true } } },
      },
      'Throughput over time needs per-request records in the report.',
    );
  }

  const heaviest = run.reports[run.reports.length - 1]!;
  const steps = heaviest.serverBreakdown;
  chart(section, `Server time per step (${loadLabel(heaviest)})`, {
    type: 'bar',
    data: {
      labels: steps.map((s) => s.model),
      datasets: [
        { label: 'queue', data: steps.map((s) => s.avgQueueMs), backgroundColor: COLORS[1] },
        { label: 'input', data: steps.map((s) => s.avgComputeInputMs), backgroundColor: COLORS[3] },
        { label: 'infer', data: steps.map((s) => s.avgComputeInferMs), backgroundColor: COLORS[0] },
        { label: 'output', data: steps.map((s) => s.avgComputeOutputMs), backgroundColor: COLORS[4] },
      ],
    },
    options: {
      indexAxis: 'y',
      scales: {
        x: { stacked: true, title: { display: true, text: 'ms per request' } },
        y: { stacked: true },
      },
    },
  });
  const models = [...new Set(run.reports.flatMap((r) => r.serverBreakdown.map((s) => s.model)))];
  chart(section, 'Mean batch size per step', {
    type: 'bar',
    data: {
      labels: models,
      datasets: run.reports.map((r, i) => ({
        label: loadLabel(r),
        data: models.map((m) => r.serverBreakdown.find((s) => s.model === m)?.meanBatchSize ?? 0),
        backgroundColor: COLORS[i % COLORS.length],
      })),
    },
    options: { scales: { y: { beginAtZero: true } } },
  });
  parent.append(section);
}

/** Every chart drawn onto one canvas, two columns per run side by side: the PNG export. */
function snapshot(): string {
  const width = 640;
  const height = 340;
  const columns = data.runs.length;
  const perRun = Math.ceil(charts.length / Math.max(1, columns));
  const out = el('canvas');
  out.width = width * columns;
  out.height = height * perRun;
  const g = out.getContext('2d')!;
  g.fillStyle = style.getPropertyValue('--vscode-editor-background') || '#fff';
  g.fillRect(0, 0, out.width, out.height);
  charts.forEach((c, i) => {
    const column = Math.floor(i / perRun);
    const row = i % perRun;
    g.fillStyle = Chart.defaults.color as string;
    g.font = '14px sans-serif';
    g.fillText(`${data.runs[column]?.label ?? ''} · ${c.title}`, column * width + 8, row * height + 18);
    g.drawImage(c.canvas, column * width + 8, row * height + 26, width - 16, height - 34);
  });
  return out.toDataURL('image/png');
}

const root = document.getElementById('runs')!;
root.className = data.runs.length > 1 ? 'runs side-by-side' : 'runs';
for (const run of data.runs) renderRun(run, root);

if (vscode) {
  for (const format of ['json', 'csv', 'html', 'png'] as const) {
    document
      .getElementById(`export-${format}`)
      ?.addEventListener('click', () =>
        vscode.postMessage({ type: 'export', format, png: format === 'png' ? snapshot() : undefined }),
      );
  }
  window.addEventListener('message', (event: MessageEvent<{ type: string }>) => {
    if (event.data.type === 'snapshot')
      vscode.postMessage({ type: 'snapshot', png: snapshot(), charts: charts.map((c) => c.title) });
  });
  vscode.postMessage({ type: 'rendered', charts: charts.map((c) => c.title) });
}
