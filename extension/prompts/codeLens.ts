/**
 * "▶ Send prompt" and "⏱ Latency test" above every prompt of a `.prompt` file, and above the
 * ensemble name of a pipeline file (the prompt is then asked for). Front matter mistakes of a
 * `.prompt` file show in the Problems panel.
 */
import * as vscode from 'vscode';
import type { PromptRequest } from '../commands/sendPrompt.js';
import { parsePromptFile } from './promptFile.js';

export const PROMPT_LANGUAGE = 'triton-prompt';
const PIPELINE_NAME = /^\s*"name"\s*:\s*"([^"]+)"/;

function requestsOf(document: vscode.TextDocument): { request: PromptRequest; line: number }[] {
  const file = parsePromptFile(document.getText());
  const { server, model, maxTokens, stop } = file.settings;
  return file.blocks.map((block) => ({
    line: block.line,
    request: { text: block.text, serverUrl: server, model, maxTokens, stop, uri: document.uri },
  }));
}

class PromptCodeLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (document.languageId === PROMPT_LANGUAGE) {
      return requestsOf(document).flatMap(({ request, line }) => {
        const range = new vscode.Range(line, 0, line, 0);
        return [
          new vscode.CodeLens(range, {
            title: '$(play) Send prompt',
            command: 'tritonStudio.sendPrompt',
            arguments: [request],
          }),
          new vscode.CodeLens(range, {
            title: '$(watch) Latency test',
            command: 'tritonStudio.runLatencyTest',
            arguments: [request],
          }),
        ];
      });
    }
    // A pipeline file: its top-level "name" is the ensemble's name.
    for (let line = 0; line < Math.min(document.lineCount, 40); line++) {
      const match = PIPELINE_NAME.exec(document.lineAt(line).text);
      if (!match || document.lineAt(line).firstNonWhitespaceCharacterIndex > 2) continue;
      const range = new vscode.Range(line, 0, line, 0);
      const model = match[1]!;
      return [
        new vscode.CodeLens(range, {
          title: '$(play) Send prompt',
          command: 'tritonStudio.sendPrompt',
          arguments: [{ model, uri: document.uri }],
        }),
        new vscode.CodeLens(range, {
          title: '$(watch) Latency test',
          command: 'tritonStudio.runLatencyTest',
          arguments: [{ model, uri: document.uri }],
        }),
      ];
    }
    return [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerPromptFiles(): vscode.Disposable {
  const problems = vscode.languages.createDiagnosticCollection('triton-studio-prompts');
  const check = (document: vscode.TextDocument) => {
    if (document.languageId !== PROMPT_LANGUAGE) return;
    problems.set(
      document.uri,
      parsePromptFile(document.getText()).errors.map((e) => {
        const d = new vscode.Diagnostic(
          document.lineAt(Math.min(e.line, document.lineCount - 1)).range,
          e.message,
        );
        d.source = 'Triton Studio';
        return d;
      }),
    );
  };
  vscode.workspace.textDocuments.forEach(check);
  const lenses = new PromptCodeLenses();
  return vscode.Disposable.from(
    problems,
    lenses,
    vscode.languages.registerCodeLensProvider(
      [{ language: PROMPT_LANGUAGE }, { pattern: '**/*.pipeline.json' }],
      lenses,
    ),
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => check(e.document)),
    vscode.workspace.onDidCloseTextDocument((d) => problems.delete(d.uri)),
  );
}
