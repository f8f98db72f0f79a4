/**
 * The VS Code side of the latency report page. The webview shows the HTML report itself
 * (client/perf/report/htmlReport.ts, drawn by client/perf/report/reportPage.mts); this script, loaded after it,
 * adds the export buttons and answers the extension: which charts were drawn, and the charts as a
 * PNG. Nothing here draws a chart.
 */
// The type only (it declares `window.tritonStudioReport`): the page script is the <script> before this one.
import type { ReportPageApi } from '../../../client/perf/report/reportPage.mjs';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const page: ReportPageApi | undefined = window.tritonStudioReport;
const titles = (page?.charts ?? []).map((c) => c.title);

const toolbar = document.createElement('div');
toolbar.className = 'toolbar';
const label = document.createElement('span');
label.className = 'muted';
label.textContent = 'Export:';
toolbar.append(label);
for (const format of ['json', 'csv', 'html', 'png'] as const) {
  const button = document.createElement('button');
  button.id = `export-${format}`;
  button.textContent = format.toUpperCase();
  button.addEventListener('click', () =>
    vscode.postMessage({ type: 'export', format, png: format === 'png' ? page?.snapshot() : undefined }),
  );
  toolbar.append(button);
}
document.body.prepend(toolbar);

window.addEventListener('message', (event: MessageEvent<{ type: string }>) => {
  if (event.data.type === 'snapshot') vscode.postMessage({ type: 'snapshot', png: page?.snapshot() });
});
// No page API: the page script failed (its error is in the webview's console).
vscode.postMessage(page ? { type: 'rendered', charts: titles } : { type: 'failed' });
