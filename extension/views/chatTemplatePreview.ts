/**
 * The chat-template preview beside a pipeline: type or paste a conversation (OpenAI-style JSON
 * messages, optional tools and template variables), see the text the pipeline's tokenize step
 * renders — by the native engine and tokenizer the step runs (client `previewChat`), special tokens
 * marked — and its token count. One panel per pipeline file; the pipeline is read again on every
 * render, so an edited template shows at once.
 */
import * as vscode from 'vscode';
import { previewChat, type ChatPreview } from '../../client/index.js';
import { webviewHtml } from '../webview/html.js';
import { chatTemplateTarget } from './chatTemplateTarget.js';

type FromPanel = { type: 'render'; messages: string; tools: string; kwargs: string } | { type: 'ready' };

export class ChatTemplatePreviews implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();

  /** Opens (or shows) the preview of the pipeline in `document`; resolves to its first render. */
  async open(document: vscode.TextDocument): Promise<ChatPreview | { problem: string }> {
    const key = document.uri.toString();
    let panel = this.panels.get(key);
    if (!panel) {
      panel = vscode.window.createWebviewPanel(
        'tritonStudio.chatTemplatePreview',
        `Chat template: ${document.uri.path.split('/').pop()}`,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, retainContextWhenHidden: true },
      );
      this.panels.set(key, panel);
      panel.onDidDispose(() => this.panels.delete(key));
      panel.webview.html = webviewHtml(panel.webview, {
        title: 'Chat template preview',
        body: PREVIEW_BODY,
        style: PREVIEW_STYLE,
        inlineScript: PREVIEW_SCRIPT,
      });
      const shown = panel;
      panel.webview.onDidReceiveMessage(async (m: FromPanel) => {
        if (m.type !== 'render') return;
        void shown.webview.postMessage({ type: 'result', result: await this.render(document, m) });
      });
    } else panel.reveal(vscode.ViewColumn.Beside, true);
    return this.render(document, { type: 'render', messages: DEFAULT_MESSAGES, tools: '', kwargs: '' });
  }

  /** One render of the panel's fields with the pipeline as it is now. */
  async render(
    document: vscode.TextDocument,
    m: Extract<FromPanel, { type: 'render' }>,
  ): Promise<ChatPreview | { problem: string }> {
    const target = chatTemplateTarget(document.getText(), document.uri.fsPath);
    if ('problem' in target) return target;
    const parse = (what: string, text: string): unknown => {
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch (e) {
        throw new Error(`${what} is not JSON: ${(e as Error).message}`);
      }
    };
    try {
      return await previewChat({
        tokenizerConfig: target.tokenizerConfig,
        ...(target.chatTemplate && { chatTemplate: target.chatTemplate }),
        tokenizer: target.tokenizer,
        messages: parse('messages', m.messages),
        tools: parse('tools', m.tools),
        kwargs: parse('template variables', m.kwargs) as Record<string, unknown> | undefined,
      });
    } catch (e) {
      return { problem: (e as Error).message };
    }
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    this.panels.clear();
  }
}

const DEFAULT_MESSAGES = JSON.stringify(
  [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is the capital of France?' },
  ],
  null,
  2,
);

const PREVIEW_STYLE = `
textarea { width: 100%; font-family: var(--vscode-editor-font-family); background: var(--vscode-input-background); color: var(--vscode-input-foreground); border: 1px solid var(--vscode-input-border, transparent); }
pre { white-space: pre-wrap; word-break: break-word; font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); padding: 8px; }
.special { color: var(--vscode-textLink-foreground); background: var(--vscode-editor-selectionBackground); border-radius: 3px; }
.error { color: var(--vscode-errorForeground); }
label { display: block; margin-top: 8px; }
`;

const PREVIEW_BODY = `
<h3>Chat template preview</h3>
<label for="messages">Messages (JSON array of {"role", "content"})</label>
<textarea id="messages" rows="10"></textarea>
<label for="tools">Tools (JSON array, optional)</label>
<textarea id="tools" rows="3"></textarea>
<label for="kwargs">Template variables (JSON object, optional, e.g. {"enable_thinking": false})</label>
<textarea id="kwargs" rows="2"></textarea>
<p><button id="render">Render</button> <span id="count" class="muted"></span></p>
<pre id="text"></pre>
`;

const PREVIEW_SCRIPT = `
const vscode = acquireVsCodeApi();
const $ = (id) => document.getElementById(id);
$('messages').value = ${JSON.stringify(DEFAULT_MESSAGES)};
const render = () => vscode.postMessage({ type: 'render', messages: $('messages').value, tools: $('tools').value, kwargs: $('kwargs').value });
$('render').addEventListener('click', render);
window.addEventListener('message', (event) => {
  const { result } = event.data;
  const out = $('text');
  out.textContent = '';
  if (result.problem || result.ok === false) {
    const where = result.line === undefined ? '' : ' (template line ' + result.line + (result.column === undefined ? '' : ', column ' + result.column) + ')';
    out.className = 'error';
    out.textContent = (result.problem || result.error) + where;
    $('count').textContent = '';
    return;
  }
  out.className = '';
  for (const s of result.segments) {
    const span = document.createElement('span');
    if (s.special) span.className = 'special';
    span.textContent = s.text;
    out.appendChild(span);
  }
  $('count').textContent = result.tokens + ' tokens';
});
render();
`;
