/**
 * The latency report as one self-contained HTML document: the charts `reportCharts.ts` specifies
 * and the page script that draws them (chart.js inside) inlined, nothing fetched. The CLI writes
 * it (`perf --html`, `perf compare --html`); the VS Code latency report shows this same document
 * in its webview (with the webview's CSP and nonce) and exports it unchanged.
 */
import type { PerfReport } from '../latencyTest.js';
import { escapeHtml, inlineScript, jsonForHtml, reportPageScript } from './htmlPage.js';
import { reportDocument, type LabelledReport } from './reportCharts.js';
import type { SweepReport } from '../sweep.js';

export interface HtmlReportOptions {
  title?: string;
  /** A CSP nonce for the scripts (VS Code webviews run only scripts that carry it). */
  nonce?: string;
  /**
   * The page's Content Security Policy. By default nothing may load from anywhere; only the
   * inline scripts run. A webview passes its own (its resource origin, the nonce).
   */
  csp?: string;
  /** More scripts to load after the page script (a webview's glue to the extension). */
  scripts?: string[];
  /** The page script; by default the built `reportPage.mts` (tests pass a stand-in). */
  pageScript?: string;
}

/** The default policy of a report file: inline scripts and styles, data: images, nothing remote. */
export const REPORT_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

const STYLE = `
body { font-family: var(--vscode-font-family, system-ui, sans-serif); color: var(--vscode-foreground, #222); background: var(--vscode-editor-background, #fff); margin: 1.5rem; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.05rem; margin: 1.5rem 0 0.3rem; }
.muted { color: var(--vscode-descriptionForeground, #666); }
.warn { color: var(--vscode-editorWarning-foreground, #a50); }
.runs.side-by-side { display: grid; gap: 0 2rem; }
.run, .chart { min-width: 0; overflow-x: auto; }
.run-label { font-size: 1.15rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 0 1.5rem; }
.chart .subtitle { margin: 0; font-size: 0.85rem; }
.chart .canvas { position: relative; height: 280px; }
.chart .empty { height: 60px; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 8px 0; }
th, td { padding: 2px 8px; border-bottom: 1px solid var(--vscode-panel-border, #ddd); text-align: right; }
th:first-child, td:first-child { text-align: left; }
.toolbar { margin: 10px 0; display: flex; gap: 6px; align-items: center; }
button { background: var(--vscode-button-background, #0e639c); color: var(--vscode-button-foreground, #fff); border: none; padding: 4px 12px; cursor: pointer; }
button:hover { background: var(--vscode-button-hoverBackground, #1177bb); }
`;

/** Renders one report (sweep or single run), or several side by side, as one HTML document. */
export function renderHtmlReport(
  reports: SweepReport | PerfReport | LabelledReport[],
  options: HtmlReportOptions = {},
): string {
  const runs = Array.isArray(reports) ? reports : [{ label: reports.model, report: asSweep(reports) }];
  const doc = reportDocument(runs, options.title);
  const nonce = options.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : '';
  const extra = (options.scripts ?? []).map((src) => `<script${nonce} src="${escapeHtml(src)}"></script>\n`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(options.csp ?? REPORT_CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<div id="report"></div>
<script${nonce} type="application/json" id="report-data">${jsonForHtml(doc)}</script>
<script${nonce}>${inlineScript(options.pageScript ?? reportPageScript())}</script>
${extra.join('')}</body>
</html>
`;
}

/** A single run (`perf --export` of one load) as a sweep of one point. */
export function asSweep(report: SweepReport | PerfReport): SweepReport {
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
