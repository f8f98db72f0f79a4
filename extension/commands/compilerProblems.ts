/** Compiler errors of a build as VS Code diagnostics on the step's TypeScript sources. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { stepSourcesDir } from '../../generator/index.js';

/** `file:line:col: error: message` (GCC and Clang), the lines a problem matcher reads. */
const COMPILER_LINE = /^(\/[^:\n]+):(\d+):(\d+):\s+(fatal error|error|warning):\s+(.*)$/gm;
/** The build copies each step's sources (REPO.src/<model>/) to `<steps build dir>/<model>-<12 hex>/src/` (see generator/build). */
const STEP_COPY = /\/([^/]+)-[0-9a-f]{12}\/src\/(.+)$/;

/**
 * The compiler's errors and warnings by file, for the Problems panel. Paths inside the build's
 * copy of a step's sources are mapped back to the generated sources beside the repository
 * (`REPO.src/<model>/`), the files the user can open (and regenerate).
 */
export function compilerProblems(output: string, repository: string): Map<string, vscode.Diagnostic[]> {
  const sources = stepSourcesDir(repository);
  const models = existsSync(sources) ? readdirSync(sources) : [];
  const byFile = new Map<string, vscode.Diagnostic[]>();
  for (const m of output.matchAll(COMPILER_LINE)) {
    let file = m[1]!;
    const copy = STEP_COPY.exec(file);
    if (copy) {
      const model = models.find((name) => name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60) === copy[1]);
      if (model) file = join(sources, model, copy[2]!);
    }
    const line = Math.max(0, Number(m[2]) - 1);
    const column = Math.max(0, Number(m[3]) - 1);
    const diagnostic = new vscode.Diagnostic(
      new vscode.Range(line, column, line, column + 1),
      m[5]!,
      m[4] === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
    );
    diagnostic.source = 'Triton Studio build';
    byFile.set(file, [...(byFile.get(file) ?? []), diagnostic]);
  }
  return byFile;
}
