/**
 * The latency report's page script (runs in the browser: the HTML report file, and the VS Code
 * latency report webview, which shows the same document). It draws the `ReportDocument` embedded
 * in `<script id="report-data">` with chart.js: every chart `reportCharts.ts` specifies, one run
 * or several side by side. It fetches nothing. A host page (the webview) reaches what it drew
 * through `window.tritonStudioReport`.
 *
 * Bundled with chart.js into one browser script (scripts/bundle.mjs → out/webview/reportPage.js);
 * `htmlReport.ts` inlines that script into the document.
 */
import { Chart, registerables, type ChartConfiguration, type ChartDataset } from 'chart.js';
import type { ChartSpec, ReportDocument, RunDocument } from './reportCharts.js';

Chart.register(...registerables);

/** What the page drew, for a host page: chart titles per run, and all charts as one PNG. */
export interface ReportPageApi {
  charts: { run: string; id: string; title: string }[];
  snapshot(): string;
}

declare global {
  interface Window {
    tritonStudioReport?: ReportPageApi;
  }
}

const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];

const doc = JSON.parse(document.getElementById('report-data')!.textContent!) as ReportDocument;
const style = getComputedStyle(document.body);
const foreground = style.color || '#222';
Chart.defaults.color = foreground;
Chart.defaults.borderColor = style.getPropertyValue('--vscode-panel-border').trim() || '#ddd';
Chart.defaults.animation = false;

/** Every chart drawn: its run (label and column) and its canvas (none when the chart is empty). */
const drawn: { run: string; column: number; spec: ChartSpec; canvas?: HTMLCanvasElement }[] = [];

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

function config(spec: ChartSpec): ChartConfiguration {
  const color = (i: number) => COLORS[i % COLORS.length]!;
  const datasets = spec.series.map((s, i): ChartDataset => ({
    label: s.label,
    data: s.data,
    borderColor: color(i),
    backgroundColor: color(i),
    yAxisID: spec.horizontal ? undefined : s.right ? 'y1' : 'y',
    ...(spec.type === 'line' ? { tension: 0.2, spanGaps: true } : {}),
  }));
  const value = { beginAtZero: true, stacked: spec.stacked, title: { display: true, text: spec.y.title } };
  const category = { stacked: spec.stacked, title: { display: !!spec.x.title, text: spec.x.title ?? '' } };
  const scales: Record<string, object> = spec.horizontal
    ? { x: value, y: category }
    : { x: category, y: value };
  if (spec.y1 && !spec.horizontal)
    scales.y1 = {
      position: 'right',
      beginAtZero: true,
      grid: { drawOnChartArea: false },
      title: { display: true, text: spec.y1.title },
    };
  return {
    type: spec.type,
    data: { labels: spec.x.labels, datasets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      indexAxis: spec.horizontal ? 'y' : 'x',
      scales,
    },
  } as ChartConfiguration;
}

function renderChart(run: RunDocument, column: number, spec: ChartSpec, parent: HTMLElement): void {
  const box = el('section', { class: 'chart', 'data-chart': spec.id, 'data-run': String(column) });
  box.append(el('h2', {}, spec.title));
  if (spec.subtitle) box.append(el('p', { class: 'muted subtitle' }, `at ${spec.subtitle}`));
  parent.append(box);
  if (spec.empty) {
    box.append(el('p', { class: 'muted empty' }, spec.empty));
    drawn.push({ run: run.label, column, spec });
    return;
  }
  const frame = el('div', { class: 'canvas' });
  const canvas = el('canvas');
  frame.append(canvas);
  box.append(frame);
  new Chart(canvas, config(spec));
  drawn.push({ run: run.label, column, spec, canvas });
}

/** A run's heading, description, warnings and summary table. */
function runHeader(run: RunDocument, multiple: boolean): HTMLElement {
  const section = el('section', { class: 'run' });
  if (multiple) section.append(el('h2', { class: 'run-label' }, run.label));
  section.append(el('p', { class: 'muted' }, run.description));
  for (const warning of run.warnings) section.append(el('p', { class: 'warn' }, warning));
  const table = el('table', { class: 'summary' });
  const head = table.createTHead().insertRow();
  for (const h of ['metric', ...run.loads]) head.append(el('th', {}, h));
  const body = table.createTBody();
  for (const row of run.summary) {
    const tr = body.insertRow();
    tr.dataset.metric = row.tag;
    const name = tr.insertCell();
    name.textContent = row.label;
    name.title = row.formula;
    for (const cell of row.cells) tr.insertCell().textContent = cell;
  }
  section.append(table, el('p', { class: 'muted' }, 'Distributions show p50 / p99.'));
  return section;
}

/**
 * One run: its header, then its charts in a grid. Several runs: one column each, and every
 * chart in the same row as the same chart of the other runs (the spec gives each run the same
 * charts in the same order), so they compare at a glance.
 */
function render(parent: HTMLElement): void {
  const multiple = doc.runs.length > 1;
  if (!multiple) {
    const run = doc.runs[0]!;
    parent.append(runHeader(run, false));
    const grid = el('div', { class: 'charts' });
    for (const spec of run.charts) renderChart(run, 0, spec, grid);
    parent.append(grid);
    return;
  }
  const grid = el('div', { class: 'runs side-by-side' });
  grid.style.gridTemplateColumns = `repeat(${doc.runs.length}, minmax(0, 1fr))`;
  parent.append(grid);
  for (const run of doc.runs) grid.append(runHeader(run, true));
  const rows = Math.max(...doc.runs.map((r) => r.charts.length));
  for (let i = 0; i < rows; i++) {
    for (const [column, run] of doc.runs.entries()) {
      const spec = run.charts[i];
      if (spec) renderChart(run, column, spec, grid);
      else grid.append(el('div'));
    }
  }
}

/** Every chart on one canvas, one column per run: the PNG export. */
function snapshot(): string {
  const width = 640;
  const height = 340;
  const columns = doc.runs.length;
  const perRun = Math.max(0, ...doc.runs.map((r) => r.charts.length));
  const rows = new Array<number>(columns).fill(0);
  const out = el('canvas');
  out.width = width * columns;
  out.height = height * perRun;
  const g = out.getContext('2d')!;
  g.fillStyle =
    style.backgroundColor && style.backgroundColor !== 'rgba(0, 0, 0, 0)' ? style.backgroundColor : '#fff';
  g.fillRect(0, 0, out.width, out.height);
  for (const c of drawn) {
    const x = c.column * width;
    const y = rows[c.column]!++ * height;
    g.fillStyle = foreground;
    g.font = '14px sans-serif';
    g.fillText(`${c.run} · ${c.spec.title}${c.spec.subtitle ? ` (${c.spec.subtitle})` : ''}`, x + 8, y + 18);
    if (c.canvas) g.drawImage(c.canvas, x + 8, y + 26, width - 16, height - 34);
    else g.fillText(c.spec.empty ?? '', x + 8, y + 50);
  }
  return out.toDataURL('image/png');
}

document.title = doc.title;
const root = document.getElementById('report')!;
root.append(el('h1', {}, doc.title));
render(root);

window.tritonStudioReport = {
  charts: drawn.map((c) => ({ run: c.run, id: c.spec.id, title: c.spec.title })),
  snapshot,
};
