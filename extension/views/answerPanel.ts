/**
 * The answer panel beside the editor: the prompt, the answer as it streams in, time to first
 * token and tokens per second updated as chunks arrive, and a Stop button that aborts the
 * request. One panel, reused by every prompt; a new prompt replaces the answer shown.
 */
import * as vscode from 'vscode';
import { webviewHtml } from '../webview/html.js';

export interface AnswerHeader {
  prompt: string;
  model: string;
  serverUrl: string;
  maxTokens: number;
}

/** Messages to the webview. */
type ToPanel =
  | ({ type: 'begin' } & AnswerHeader)
  | {
      type: 'chunk';
      text: string;
      tokens: number;
      elapsedMs: number;
      ttftMs: number;
      tokensPerSecond?: number;
    }
  | { type: 'done'; latencyMs: number; ttftMs: number; tokens: number; tokensPerSecond?: number }
  | { type: 'error'; message: string; cancelled: boolean };

/** One answer being shown: feed it chunks, then end it. */
export interface AnswerSession {
  chunk(text: string): void;
  done(result: { latencyMs: number; ttftMs: number }): void;
  fail(message: string, cancelled: boolean): void;
}

/** The longest a streamed chunk waits before it is shown: 20 updates a second read as live. */
const FLUSH_MS = 50;

export class AnswerPanel implements vscode.Disposable {
  static readonly viewType = 'tritonStudio.answer';
  private panel: vscode.WebviewPanel | undefined;
  private stop: (() => void) | undefined;
  /** Messages posted before the webview said it was ready. */
  private queue: ToPanel[] = [];
  private ready = false;

  /** Opens (or reuses) the panel for a new answer; `onStop` runs when the user presses Stop. */
  begin(header: AnswerHeader, onStop: () => void): AnswerSession {
    this.ensurePanel();
    this.stop = onStop;
    this.post({ type: 'begin', ...header });
    const started = Date.now();
    let firstAt: number | undefined;
    let tokens = 0;
    // Tokens after the first one, over the time since it came: the decode rate a user feels.
    const rate = (now: number) =>
      firstAt !== undefined && tokens > 1 && now > firstAt
        ? ((tokens - 1) * 1000) / (now - firstAt)
        : undefined;
    // A model streams hundreds of chunks a second; one message each would keep the extension
    // host and the webview busy with messages (and the Stop click waiting behind them), so
    // chunks are sent in batches, at most one every FLUSH_MS, and the end flushes what is left.
    let pending = '';
    let shownTokens = 0;
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (tokens === shownTokens) return; // an empty chunk still counts, and is still shown
      shownTokens = tokens;
      const now = Date.now();
      this.post({
        type: 'chunk',
        text: pending,
        tokens,
        elapsedMs: now - started,
        ttftMs: firstAt! - started,
        tokensPerSecond: rate(now),
      });
      pending = '';
    };
    return {
      chunk: (text) => {
        firstAt ??= Date.now();
        tokens++;
        pending += text;
        // The first chunk is shown at once: time to first token is what the user waits for.
        if (tokens === 1) flush();
        else timer ??= setTimeout(flush, FLUSH_MS);
      },
      done: (result) => {
        flush();
        this.stop = undefined;
        this.post({
          type: 'done',
          latencyMs: result.latencyMs,
          ttftMs: result.ttftMs,
          tokens,
          tokensPerSecond: rate(Date.now()),
        });
      },
      fail: (message, cancelled) => {
        flush();
        this.stop = undefined;
        this.post({ type: 'error', message, cancelled });
      },
    };
  }

  private post(message: ToPanel): void {
    if (this.ready) void this.panel?.webview.postMessage(message);
    else this.queue.push(message);
  }

  private ensurePanel(): void {
    if (this.panel) {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
      return;
    }
    this.ready = false;
    this.queue = [];
    const panel = vscode.window.createWebviewPanel(
      AnswerPanel.viewType,
      'Triton Studio: Answer',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, retainContextWhenHidden: true },
    );
    this.panel = panel;
    panel.onDidDispose(() => {
      this.stop?.();
      this.panel = undefined;
      this.ready = false;
    });
    panel.webview.onDidReceiveMessage((m: { type: string }) => {
      if (m.type === 'ready') {
        this.ready = true;
        for (const queued of this.queue.splice(0)) void panel.webview.postMessage(queued);
      } else if (m.type === 'stop') this.stop?.();
    });
    panel.webview.html = webviewHtml(panel.webview, {
      title: 'Answer',
      style: `
.stats { display: flex; gap: 20px; margin: 8px 0; align-items: center; }
.stat b { font-size: 1.3em; display: block; }
pre { white-space: pre-wrap; word-break: break-word; padding: 8px; background: var(--vscode-textCodeBlock-background); font-family: var(--vscode-editor-font-family); }
#answer { min-height: 3em; }
.error { color: var(--vscode-errorForeground); }`,
      body: `
<h3 id="title">Answer</h3>
<div class="muted" id="meta"></div>
<div class="muted">prompt</div><pre id="prompt"></pre>
<div class="stats">
  <div class="stat"><span class="muted">time to first token</span><b id="ttft">–</b></div>
  <div class="stat" title="chunks after the first, per second since the first arrived"><span class="muted">tokens/s</span><b id="tps">–</b></div>
  <div class="stat" title="text responses received; one per token when the model streams"><span class="muted">chunks</span><b id="tokens">0</b></div>
  <div class="stat"><span class="muted">latency</span><b id="latency">–</b></div>
  <button id="stop" disabled>■ Stop</button>
</div>
<div class="muted" id="state">waiting</div>
<pre id="answer"></pre>`,
      inlineScript: ANSWER_SCRIPT,
    });
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

const ANSWER_SCRIPT = `
const vscode = acquireVsCodeApi();
const $ = (id) => document.getElementById(id);
const ms = (v) => v === undefined ? '–' : v.toFixed(1) + ' ms';
$('stop').addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
window.addEventListener('message', (event) => {
  const m = event.data;
  if (m.type === 'begin') {
    $('title').textContent = m.model;
    $('meta').textContent = m.serverUrl + ' · max_tokens ' + m.maxTokens;
    $('prompt').textContent = m.prompt;
    $('answer').textContent = '';
    $('answer').className = '';
    for (const id of ['ttft', 'tps', 'latency']) $(id).textContent = '–';
    $('tokens').textContent = '0';
    $('state').textContent = 'answering…';
    $('stop').disabled = false;
  } else if (m.type === 'chunk') {
    $('answer').append(m.text);
    $('ttft').textContent = ms(m.ttftMs);
    $('tokens').textContent = String(m.tokens);
    if (m.tokensPerSecond !== undefined) $('tps').textContent = m.tokensPerSecond.toFixed(1);
    $('latency').textContent = ms(m.elapsedMs);
  } else if (m.type === 'done') {
    $('ttft').textContent = ms(m.ttftMs);
    $('latency').textContent = ms(m.latencyMs);
    $('tokens').textContent = String(m.tokens);
    if (m.tokensPerSecond !== undefined) $('tps').textContent = m.tokensPerSecond.toFixed(1);
    $('state').textContent = 'done';
    $('stop').disabled = true;
  } else if (m.type === 'error') {
    $('state').textContent = m.cancelled ? 'stopped' : 'failed';
    if (!m.cancelled) { $('answer').className = 'error'; $('answer').textContent += (m.message); }
    $('stop').disabled = true;
  }
});
vscode.postMessage({ type: 'ready' });
`;
