/**
 * One long-lived `ts-render-chat --batch` process over one template, asked line by line: what a
 * server renders every request with (openai-serve's usage count), where starting the tool (and
 * checking its build) per request would cost more than the request. A render error fails only its
 * own promise; a process that stops fails the questions it held and is started again for the next.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  ChatRenderError,
  toWire,
  type ChatRenderFailure,
  type ChatRenderRequest,
  type ChatTemplateSource,
} from './renderChat.js';

interface Waiting {
  resolve: (text: string) => void;
  reject: (e: Error) => void;
}

export class ChatRenderer {
  private child: ChildProcessWithoutNullStreams | undefined;
  private waiting: Waiting[] = [];

  /** @param binary `build/backends/tools/ts-render-chat` (`renderChatTool()` builds it) */
  constructor(
    private readonly binary: string,
    readonly source: ChatTemplateSource,
  ) {}

  render(request: ChatRenderRequest): Promise<string> {
    const child = this.child ?? this.start();
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify(toWire(request))}\n`);
    });
  }

  close(): void {
    this.child?.stdin.end();
    this.child = undefined;
  }

  private start(): ChildProcessWithoutNullStreams {
    const args = ['--tokenizer-config', this.source.tokenizerConfig, '--batch'];
    if (this.source.chatTemplate !== undefined) args.push('--chat-template', this.source.chatTemplate);
    const child = spawn(this.binary, args);
    this.child = child;
    const waiting: Waiting[] = [];
    this.waiting = waiting;
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => undefined); // a template that fails to load closes stdin early
    createInterface({ input: child.stdout }).on('line', (line) => {
      const next = waiting.shift();
      if (!next) return;
      try {
        const answer = JSON.parse(line) as { text?: string; error?: ChatRenderFailure };
        if (answer.error) next.reject(new ChatRenderError(answer.error));
        else next.resolve(answer.text ?? '');
      } catch {
        next.reject(new Error(`ts-render-chat: an answer that is not JSON: ${line.slice(0, 200)}`));
      }
    });
    const stopped = (message: string) => {
      if (this.child === child) this.child = undefined;
      const error = new ChatRenderError({ kind: 'config', message });
      for (const w of waiting.splice(0)) w.reject(error);
    };
    child.on('error', (e) => stopped(`cannot run ${this.binary}: ${e.message}`));
    child.on('close', (code, signal) =>
      stopped(
        stderr.trim().replace(/^ts-render-chat: /, '') ||
          `ts-render-chat stopped (${code !== null ? `exit ${code}` : `signal ${signal}`})`,
      ),
    );
    return child;
  }
}
