/**
 * Pipeline diagnostics in the Problems panel: every open `*.pipeline.json` is validated as it is
 * typed, with the same `validatePipeline` the CLI runs, so the TS-Exxx errors (wires, dtypes,
 * batching, presets, tokenizers…) show in place, with their codes. JSON syntax and schema errors
 * are left to VS Code's JSON language service, which already reports them through the schema the
 * extension contributes (`jsonValidation`); repeating them would list every such mistake twice.
 */
import * as vscode from 'vscode';
import { validatePipeline, type Diagnostic, type EnvironmentOptions } from '../generator/index.js';

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
export function pipelineProblems(
  text: string,
  file: string,
  lookups: EnvironmentOptions = {},
): vscode.Diagnostic[] {
  const result = validatePipeline(text, file, lookups);
  if (!result.pipeline) return []; // syntax or schema errors: the JSON language service shows them
  return result.diagnostics.filter((d) => d.file === file).map(toVscodeDiagnostic);
}

/**
 * `lookups`: where tokenizers and model weights named by name are looked for (setup/storage.ts);
 * `tokenizersChanged`: fires when one was added there, which re-checks every open pipeline.
 */
export function registerPipelineDiagnostics(
  lookups: EnvironmentOptions,
  tokenizersChanged?: vscode.Event<void>,
): vscode.Disposable {
  return registerDocumentProblems({
    name: 'triton-studio',
    matches: (file) => PIPELINE_FILE.test(file),
    problems: (text, file) => pipelineProblems(text, file, lookups),
    debounceMs: DEBOUNCE_MS,
    what: 'validate this file',
    // Tokenizers, `files` and TypeScript modules are looked up on disk: saving any file (a hooks
    // module, say) re-checks what the file system says.
    recheckOnSave: true,
    recheckOn: tokenizersChanged,
  });
}

export interface DocumentProblems {
  /** The diagnostic collection's name. */
  name: string;
  matches(file: string): boolean;
  problems(text: string, file: string): vscode.Diagnostic[];
  /** Quiet time after a keystroke before checking. */
  debounceMs: number;
  /** For the message when checking throws: "could not <what>". */
  what: string;
  /** Re-check every open matching file when any file is saved (they may name it). */
  recheckOnSave?: boolean;
  /** Re-check every open matching file when this fires. */
  recheckOn?: vscode.Event<void>;
}

/** Checks every open file the options match, as it is opened and typed (debounced), into Problems. */
export function registerDocumentProblems(options: DocumentProblems): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection(options.name);
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const matches = (doc: vscode.TextDocument) => doc.uri.scheme === 'file' && options.matches(doc.uri.fsPath);
  const check = (doc: vscode.TextDocument) => {
    if (!matches(doc)) return;
    try {
      collection.set(doc.uri, options.problems(doc.getText(), doc.uri.fsPath));
    } catch (e) {
      // A checker bug must not take the editor down; say so where the user looks.
      collection.set(doc.uri, [
        new vscode.Diagnostic(
          new vscode.Range(0, 0, 0, 0),
          `Triton Studio could not ${options.what}: ${(e as Error).message}`,
          vscode.DiagnosticSeverity.Warning,
        ),
      ]);
    }
  };
  const later = (doc: vscode.TextDocument) => {
    if (!matches(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(pending.get(key));
    pending.set(
      key,
      setTimeout(() => {
        pending.delete(key);
        check(doc);
      }, options.debounceMs),
    );
  };
  for (const doc of vscode.workspace.textDocuments) check(doc);
  return vscode.Disposable.from(
    collection,
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => later(e.document)),
    ...(options.recheckOnSave
      ? [vscode.workspace.onDidSaveTextDocument(() => vscode.workspace.textDocuments.forEach(check))]
      : []),
    ...(options.recheckOn ? [options.recheckOn(() => vscode.workspace.textDocuments.forEach(check))] : []),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      clearTimeout(pending.get(doc.uri.toString()));
      pending.delete(doc.uri.toString());
      collection.delete(doc.uri);
    }),
    { dispose: () => pending.forEach((t) => clearTimeout(t)) },
  );
}
