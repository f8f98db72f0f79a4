/** The "Triton Studio" output channel: one block per prompt with its answer or its error. */
import type * as vscode from 'vscode';
import type { PromptResult } from '../../client/index.js';

export const OUTPUT_CHANNEL_NAME = 'Triton Studio';

export interface PromptRecord {
  serverUrl: string;
  model: string;
  maxTokens: number;
  prompt: string;
}

/** The "Triton Studio" output channel: one block per prompt, with its answer or its error. */
export class PromptOutput implements vscode.Disposable {
  constructor(private readonly channel: vscode.OutputChannel) {}

  showAnswer(record: PromptRecord, result: PromptResult): void {
    this.header(record);
    this.block('answer', result.text);
    const responses = `${result.responses} response${result.responses === 1 ? '' : 's'}`;
    this.channel.appendLine(
      `latency ${result.latencyMs.toFixed(1)} ms (first text after ${result.ttftMs.toFixed(1)} ms, ${responses})`,
    );
    this.channel.appendLine('');
    // preserveFocus: the answer should appear without taking the cursor out of the editor.
    this.channel.show(true);
  }

  /** `record` is left out when the prompt never got as far as a server (a bad setting). */
  showError(message: string, record?: PromptRecord): void {
    if (record) this.header(record);
    this.channel.appendLine(`error: ${message}`);
    this.channel.appendLine('');
    this.channel.show(true);
  }

  dispose(): void {
    this.channel.dispose();
  }

  private header(record: PromptRecord): void {
    const time = new Date().toLocaleTimeString();
    this.channel.appendLine(
      `── ${record.model} @ ${record.serverUrl} · max_tokens ${record.maxTokens} · ${time}`,
    );
    this.block('prompt', record.prompt);
  }

  /** Multi-line text indented under its label, so prompt and answer stay apart. */
  private block(label: string, text: string): void {
    this.channel.appendLine(`${label}:`);
    for (const line of text.split('\n')) this.channel.appendLine(`  ${line}`);
  }
}
