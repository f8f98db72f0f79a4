/**
 * The one way the extension builds webview HTML: a strict Content Security Policy (nothing
 * remote; scripts only with this page's nonce; styles from the extension and inline), so a
 * webview can show data from a server or a report file without running anything from it. (The
 * latency report shows client/perf's HTML report document under this same policy.)
 */
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';
import { escapeHtml, jsonForHtml } from '../../client/index.js';

export { escapeHtml };

export function nonce(): string {
  return randomBytes(16).toString('base64');
}

export interface WebviewPage {
  title: string;
  body: string;
  /** Script files (webview URIs from `webview.asWebviewUri`), loaded with the nonce. */
  scripts?: vscode.Uri[];
  /** Inline script (runs with the nonce). */
  inlineScript?: string;
  style?: string;
  /** Data for the page's scripts, as JSON in a non-executable script tag (id "data"). */
  data?: unknown;
  /** Stylesheet files (webview URIs), loaded after the base style. */
  stylesheets?: vscode.Uri[];
  /** false: the page brings all its own style (the base style below would restyle its tables and body). */
  baseStyle?: boolean;
  /** The page starts a Web Worker from one of the extension's scripts (fetched, then run from a Blob). */
  workers?: boolean;
}

/** Nothing remote; images, styles and fonts from the extension; scripts only with the nonce. */
export function contentSecurityPolicy(
  webview: vscode.Webview,
  scriptNonce: string,
  options: { workers?: boolean } = {},
): string {
  return [
    "default-src 'none'",
    `img-src ${webview.cspSource} data: blob:`,
    `style-src ${webview.cspSource} 'unsafe-inline'`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${scriptNonce}'`,
    // A worker's script is fetched from the extension and started from a Blob (a webview cannot
    // start a Worker from its resource origin's URL).
    ...(options.workers ? [`connect-src ${webview.cspSource}`, 'worker-src blob:'] : []),
  ].join('; ');
}

const BASE_STYLE = `body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 16px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border-bottom: 1px solid var(--vscode-panel-border); padding: 4px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 4px 12px; cursor: pointer; }
button:hover { background: var(--vscode-button-hoverBackground); }
button:disabled { opacity: 0.5; cursor: default; }
.muted { color: var(--vscode-descriptionForeground); }`;

export function webviewHtml(webview: vscode.Webview, page: WebviewPage): string {
  const n = nonce();
  const csp = contentSecurityPolicy(webview, n, { workers: page.workers });
  const data =
    page.data === undefined
      ? ''
      : `<script type="application/json" id="data">${jsonForHtml(page.data)}</script>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(page.title)}</title>
<style>
${page.baseStyle === false ? '' : BASE_STYLE}
${page.style ?? ''}
</style>
${(page.stylesheets ?? []).map((s) => `<link rel="stylesheet" href="${escapeHtml(s.toString())}">`).join('\n')}
</head>
<body>
${page.body}
${data}
${(page.scripts ?? []).map((s) => `<script nonce="${n}" src="${s.toString()}"></script>`).join('\n')}
${page.inlineScript ? `<script nonce="${n}">${page.inlineScript}</script>` : ''}
</body>
</html>`;
}
