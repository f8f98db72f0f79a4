/**
 * The latency report panel: one run, or two side by side. The webview shows the latency lab's
 * HTML report (client/perf/report/htmlReport.ts: the same document `triton-studio perf --html` and
 * `perf compare --html` write, chart.js inside, nothing remote) under the webview's strict CSP
 * with a nonce, plus out/webview/latencyReport.js for the export buttons. Exports the runs as
 * JSON, CSV, that HTML document, or the charts as one PNG.
 */
import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { renderHtmlReport, reportCsv, type LabelledReport } from '../../client/index.js';
import type { Ctx } from '../context.js';
import { contentSecurityPolicy, nonce } from '../webview/html.js';

export type ExportFormat = 'json' | 'csv' | 'html' | 'png';

/** One open report panel; the test suite reads what it rendered. */
export class LatencyReportPanel {
  private static current: LatencyReportPanel | undefined;
  readonly panel: vscode.WebviewPanel;
  /** Chart titles the page drew (every run's, in order), once it has rendered. */
  readonly rendered: Promise<string[]>;
  private snapshotWaiters: ((png: string) => void)[] = [];

  static get active(): LatencyReportPanel | undefined {
    return LatencyReportPanel.current;
  }

  constructor(
    private readonly ctx: Ctx,
    readonly runs: LabelledReport[],
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
    let settle: (charts: string[]) => void = () => {};
    let fail: (error: Error) => void = () => {};
    this.rendered = new Promise((resolve, reject) => ((settle = resolve), (fail = reject)));
    // Whoever awaits `rendered` sees a failure; a panel nobody waits on must not log it as unhandled.
    this.rendered.catch(() => undefined);
    this.panel.webview.onDidReceiveMessage(
      async (m: { type: string; format?: ExportFormat; png?: string; charts?: string[] }) => {
        if (m.type === 'rendered') settle(m.charts ?? []);
        else if (m.type === 'failed') fail(new Error('the report page failed to draw its charts'));
        else if (m.type === 'snapshot' && m.png) this.snapshotWaiters.splice(0).forEach((w) => w(m.png!));
        else if (m.type === 'export' && m.format) await this.exportTo(m.format, undefined, m.png);
      },
    );
    const n = nonce();
    this.panel.webview.html = renderHtmlReport(runs, {
      nonce: n,
      csp: contentSecurityPolicy(this.panel.webview, n),
      scripts: [this.panel.webview.asWebviewUri(script).toString()],
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
    if (format === 'json') {
      // One run: the sweep as `perf --export` writes it; several: each with its label.
      const json = this.runs.length === 1 ? this.runs[0]!.report : this.runs;
      writeFileSync(target, `${JSON.stringify(json, null, 2)}\n`);
    } else if (format === 'csv') writeFileSync(target, reportCsv(this.runs));
    // Exactly the CLI's document for these runs: no nonce, the file's own CSP, no extension script.
    else if (format === 'html') writeFileSync(target, renderHtmlReport(this.runs));
    else {
      const dataUrl = png ?? (await this.snapshot());
      writeFileSync(target, Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
    }
    this.ctx.log(`latency report exported to ${target}`);
    return target;
  }
}
