/**
 * "▶ Send prompt" and "⏱ Latency test" above every prompt of a `.prompt` file, above each sample
 * prompt (`samplePrompts`) of a pipeline file, and above the ensemble name of a pipeline file that
 * has none (the prompt is then asked for). Front matter mistakes of a `.prompt` file show in the
 * Problems panel.
 */
import { findNodeAtLocation, getNodeValue, parseTree } from 'jsonc-parser';
import * as vscode from 'vscode';
import type { PromptRequest } from '../commands/sendPrompt.js';
import { parsePromptFile } from './promptFile.js';

export const PROMPT_LANGUAGE = 'triton-prompt';

/**
 * A pipeline file's lenses: one pair per sample prompt, on the prompt's line, for the ensemble
 * the file names; else one pair on the `"name"` line (the prompt is then asked for). A file
 * without a top-level name (not a pipeline yet) gets none.
 */
function pipelineRequests(
  document: vscode.TextDocument,
): { request: Partial<PromptRequest>; line: number }[] {
  const root = parseTree(document.getText());
  const nameNode = root && findNodeAtLocation(root, ['name']);
  const model: unknown = nameNode && getNodeValue(nameNode);
  if (typeof model !== 'string' || !nameNode) return [];
  const samples = findNodeAtLocation(root, ['samplePrompts']);
  const prompts = (samples?.type === 'array' ? (samples.children ?? []) : []).filter(
    (n) => n.type === 'string' && typeof n.value === 'string' && n.value !== '',
  );
  if (prompts.length > 0)
    return prompts.map((n) => ({
      line: document.positionAt(n.offset).line,
      request: { text: n.value as string, model, uri: document.uri },
    }));
  // The lens goes on the line of the "name" property (its key), as before sample prompts existed.
  return [
    {
      line: document.positionAt(nameNode.parent?.offset ?? nameNode.offset).line,
      request: { model, uri: document.uri },
    },
  ];
}

function requestsOf(document: vscode.TextDocument): { request: PromptRequest; line: number }[] {
  const file = parsePromptFile(document.getText());
  const { server, model, maxTokens, stop, chatTemplateKwargs } = file.settings;
  return file.blocks.map((block) => ({
    line: block.line,
    request: {
      text: block.text,
      ...(block.messages && { chat: { messages: block.messages, chatTemplateKwargs } }),
      serverUrl: server,
      model,
      maxTokens,
      stop,
      uri: document.uri,
    },
  }));
}

class PromptCodeLenses implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const requests =
      document.languageId === PROMPT_LANGUAGE ? requestsOf(document) : pipelineRequests(document);
    return requests.flatMap(({ request, line }) => {
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
