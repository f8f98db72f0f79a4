/**
 * TypeScript steps and hooks in the Problems panel: every open `.ts` file in a `hooks/` or
 * `steps/` folder is compiled as it is typed, with the same compiler `triton-studio validate`
 * and the generator run, so what falls outside the compiled subset (TS-E080) shows in place with
 * what to write instead. Type errors stay with VS Code's own TypeScript service.
 */
import * as vscode from 'vscode';
import { compileModule } from '../generator/index.js';
import { registerDocumentProblems, toVscodeDiagnostic } from './diagnostics.js';

const STEP_MODULE = /[\\/](hooks|steps)[\\/][^\\/]+\.ts$/;
/** Compiling type-checks the module: give typing a pause first. */
const DEBOUNCE_MS = 300;

export function tsStepProblems(text: string, file: string): vscode.Diagnostic[] {
  return compileModule({ fileName: file, text })
    .diagnostics.filter((d) => d.code === 'TS-E080')
    .map(toVscodeDiagnostic);
}

export function registerTsStepDiagnostics(): vscode.Disposable {
  return registerDocumentProblems({
    name: 'triton-studio-ts',
    matches: (file) => STEP_MODULE.test(file),
    problems: tsStepProblems,
    debounceMs: DEBOUNCE_MS,
    what: 'compile this module',
  });
}
