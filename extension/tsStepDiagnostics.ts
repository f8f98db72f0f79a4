/**
 * TypeScript steps and hooks in the Problems panel: every open `.ts` file in a `hooks/` or
 * `steps/` folder is compiled as it is typed, with the same compiler `triton-studio validate`
 * and the generator run, so what falls outside the compiled subset (TS-E080) shows in place with
 * what to write instead. Type errors stay with VS Code's own TypeScript service.
 */
import * as vscode from 'vscode';
import { compileModule } from '../generator/index.js';
import { toVscodeDiagnostic } from './diagnostics.js';

const STEP_MODULE = /[\\/](hooks|steps)[\\/][^\\/]+\.ts$/;
/** Compiling type-checks the module: give typing a pause first. */
const DEBOUNCE_MS = 300;

export function tsStepProblems(text: string, file: string): vscode.Diagnostic[] {
  return compileModule({ fileName: file, text })
    .diagnostics.filter((d) => d.code === 'TS-E080')
    .map(toVscodeDiagnostic);
}

export function registerTsStepDiagnostics(): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('triton-studio-ts');
  const pending = new Map<string, ReturnType<typeof setTimeout>>();
  const isStepModule = (doc: vscode.TextDocument): boolean =>
    doc.uri.scheme === 'file' && STEP_MODULE.test(doc.uri.fsPath);
  const check = (doc: vscode.TextDocument): void => {
    if (!isStepModule(doc)) return;
    try {
      collection.set(doc.uri, tsStepProblems(doc.getText(), doc.uri.fsPath));
    } catch (e) {
      collection.set(doc.uri, [
        new vscode.Diagnostic(
          new vscode.Range(0, 0, 0, 0),
          `Triton Studio could not compile this module: ${(e as Error).message}`,
          vscode.DiagnosticSeverity.Warning,
        ),
      ]);
    }
  };
  const later = (doc: vscode.TextDocument): void => {
    if (!isStepModule(doc)) return;
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
    vscode.workspace.onDidCloseTextDocument((doc) => collection.delete(doc.uri)),
    { dispose: () => pending.forEach((t) => clearTimeout(t)) },
  );
}
