/**
 * The latency report panel: the charts of one run, or two runs side by side, drawn by
 * out/webview/latencyReport.js (chart.js, bundled: nothing remote) under a strict CSP; exports
 * the runs as JSON, CSV, a self-contained HTML file, or the charts as one PNG.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { Ctx } from '../context.js';
import { reportCsv, type ReportRun } from '../webview/latencyReport/model.js';
import { escapeHtml, webviewHtml } from '../webview/html.js';

export type ExportFormat = 'json' | 'csv' | 'html' | 'png';

const BODY = `
<div class="toolbar">
  <span class="muted">Export:</span>
  <button id="export-json">JSON</button> <button id="export-csv">CSV</button>
  <button id="export-html">HTML</button> <button id="export-png">PNG</button>
</div>
<div id="runs"></div>`;

const STYLE = `
.toolbar { margin: 10px 0; display: flex; gap: 6px; align-items: center; }
.runs.side-by-side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; }
.run { min-width: 0; overflow-x: auto; }
.chart { height: 260px; margin: 12px 0 40px; }
.chart h4 { margin: 0 0 4px; }
table { font-size: 0.9em; }`;

/** One open report panel; the test suite reads what it rendered. */
export class LatencyReportPanel {
  private static current: LatencyReportPanel | undefined;
  readonly panel: vscode.WebviewPanel;
  /** Chart titles the page drew, once it has rendered. */
  readonly rendered: Promise<string[]>;
  private snapshotWaiters: ((png: string) => void)[] = [];

  static get active(): LatencyReportPanel | undefined {
    return LatencyReportPanel.current;
  }

  constructor(
    private readonly ctx: Ctx,
    readonly runs: ReportRun[],
  ) {
    LatencyReportPanel.current?.panel.dispose();
    LatencyReportPanel.current = this;
    const script = vscode.Uri.joinPath(ctx.extension.extensionUri, 'out', 'webview', 'latencyReport.js');
    this.panel = vscode.window.createWebviewPanel(
      'tritonStudio.latencyReport',
      runs.length > 1
        ? `Latency: ${runs.map((r) => r.label).join(' vs ')}`
        : `Latency: ${runs[0]?.label ?? ''}`,
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(script, '..')],
      },
    );
    this.panel.onDidDispose(() => {
      if (LatencyReportPanel.current === this) LatencyReportPanel.current = undefined;
    });
    let resolveRendered: (charts: string[]) => void = () => {};
    this.rendered = new Promise((r) => (resolveRendered = r));
    this.panel.webview.onDidReceiveMessage(
      async (m: { type: string; format?: ExportFormat; png?: string; charts?: string[] }) => {
        if (m.type === 'rendered') resolveRendered(m.charts ?? []);
        else if (m.type === 'snapshot' && m.png) this.snapshotWaiters.splice(0).forEach((w) => w(m.png!));
        else if (m.type === 'export' && m.format) await this.exportTo(m.format, undefined, m.png);
      },
    );
    this.panel.webview.html = webviewHtml(this.panel.webview, {
      title: 'Latency report',
      body: BODY,
      style: STYLE,
      data: { runs, interactive: true },
      scripts: [this.panel.webview.asWebviewUri(script)],
    });
  }

  /** The charts as one PNG (data URL), drawn by the page. */
  snapshot(): Promise<string> {
    const png = new Promise<string>((r) => this.snapshotWaiters.push(r));
    void this.panel.webview.postMessage({ type: 'snapshot' });
    return png;
  }

  /** Writes the export; asks where when `file` is not given. Returns the file written. */
  async exportTo(format: ExportFormat, file?: string, png?: string): Promise<string | undefined> {
    const target =
      file ??
      (
        await vscode.window.showSaveDialog({
          title: `Export the latency report as ${format.toUpperCase()}`,
          defaultUri: vscode.Uri.joinPath(
            vscode.workspace.workspaceFolders?.[0]?.uri ?? this.ctx.extension.globalStorageUri,
            `latency-report.${format}`,
          ),
          filters: { [format.toUpperCase()]: [format] },
        })
      )?.fsPath;
    if (!target) return undefined;
    if (format === 'json')
      writeFileSync(
        target,
        `${JSON.stringify(this.runs.length === 1 ? this.runs[0] : this.runs, null, 2)}\n`,
      );
    else if (format === 'csv') writeFileSync(target, reportCsv(this.runs));
    else if (format === 'html') writeFileSync(target, this.standaloneHtml());
    else {
      const dataUrl = png ?? (await this.snapshot());
      writeFileSync(target, Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
    }
    this.ctx.log(`latency report exported to ${target}`);
    return target;
  }

  /** The report as one HTML file that opens anywhere: the chart script and the data inlined. */
  private standaloneHtml(): string {
    const script = readFileSync(
      vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'out', 'webview', 'latencyReport.js').fsPath,
      'utf8',
    );
    const data = JSON.stringify({ runs: this.runs, interactive: false }).replace(/</g, '\\u003c');
    return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>${escapeHtml(this.panel.title)}</title>
<style>body { font-family: system-ui, sans-serif; margin: 16px; } .muted { color: #777; } table { border-collapse: collapse; } th, td { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: right; } ${STYLE} .toolbar { display: none; }</style>
</head><body>
<h2>${escapeHtml(this.panel.title)}</h2>
<div id="runs"></div>
<script type="application/json" id="data">${data}</script>
<script>${script.replace(/<\/script/gi, '<\\/script')}</script>
</body></html>
`;
  }
}
