/**
 * Pipeline diagnostics in the Problems panel: every open `*.pipeline.json` is validated as it is
 * typed, with the same `validatePipeline` the CLI runs, so the TS-Exxx errors (wires, dtypes,
 * batching, presets, tokenizers…) show in place, with their codes. JSON syntax and schema errors
 * are left to VS Code's JSON language service, which already reports them through the schema the
 * extension contributes (`jsonValidation`); repeating them would list every such mistake twice.
 */
import * as vscode from 'vscode';
import { validatePipeline, type Diagnostic } from '../generator/index.js';

export const DIAGNOSTIC_SOURCE = 'Triton Studio';
const PIPELINE_FILE = /\.pipeline\.json$/;
/** Quiet time after a keystroke before validating (validation itself takes a few ms). */
const DEBOUNCE_MS = 150;

const SEVERITY: Record<Diagnostic['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function toVscodeDiagnostic(d: Diagnostic): vscode.Diagnostic {
  const range = new vscode.Range(
    d.range.start.line,
    d.range.start.column,
    d.range.end.line,
    d.range.end.column,
  );
  const out = new vscode.Diagnostic(range, d.message, SEVERITY[d.severity]);
  out.code = d.code;
  out.source = DIAGNOSTIC_SOURCE;
  return out;
}

/** The diagnostics to show for one document: semantic ones only (see the file comment). */
export function pipelineProblems(text: string, file: string): vscode.Diagnostic[] {
  const result = validatePipeline(text, file);
  if (!result.pipeline) return []; // syntax or schema errors: the JSON language service shows them
  return result.diagnostics.filter((d) => d.file === file).map(toVscodeDiagnostic);
}

export function registerPipelineDiagnostics(): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('triton-studio');
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const isPipeline = (doc: vscode.TextDocument) =>
    doc.uri.scheme === 'file' && PIPELINE_FILE.test(doc.uri.fsPath);
  const check = (doc: vscode.TextDocument) => {
    if (!isPipeline(doc)) return;
    try {
      collection.set(doc.uri, pipelineProblems(doc.getText(), doc.uri.fsPath));
    } catch (e) {
      // A validator bug must not take the editor down; say so where the user looks.
      collection.set(doc.uri, [
        new vscode.Diagnostic(
          new vscode.Range(0, 0, 0, 0),
          `Triton Studio could not validate this file: ${(e as Error).message}`,
          vscode.DiagnosticSeverity.Warning,
        ),
      ]);
    }
  };
  const later = (doc: vscode.TextDocument) => {
    if (!isPipeline(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(pending.get(key));
    pending.set(
      key,
      setTimeout(() => {
        pending.delete(key);
        check(doc);
      }, DEBOUNCE_MS),
    );
  };
  for (const doc of vscode.workspace.textDocuments) check(doc);
  return vscode.Disposable.from(
    collection,
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    // Tokenizers and `files` are looked up on disk: saving re-checks what the file system says.
    vscode.workspace.onDidSaveTextDocument(check),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      clearTimeout(pending.get(doc.uri.toString()));
      pending.delete(doc.uri.toString());
      collection.delete(doc.uri);
    }),
    { dispose: () => pending.forEach((t) => clearTimeout(t)) },
  );
}
