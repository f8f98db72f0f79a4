/**
 * The pipeline JSON schema in real VS Code (jsonValidation): schema errors in a *.pipeline.json
 * file.
 */
import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';

/** The diagnostics of `uri` once `ready` accepts them (the JSON language server answers asynchronously). */
async function diagnosticsWhen(
  uri: vscode.Uri,
  ready: (d: readonly vscode.Diagnostic[]) => boolean,
  timeoutMs = 30_000,
): Promise<readonly vscode.Diagnostic[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const diagnostics = vscode.languages.getDiagnostics(uri);
    if (ready(diagnostics)) return diagnostics;
    if (Date.now() > deadline) {
      throw new Error(
        `no matching diagnostics for ${uri.fsPath} after ${timeoutMs} ms: ${JSON.stringify(diagnostics)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Triton Studio extension: pipeline JSON schema (jsonValidation)', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  let broken: vscode.Uri;

  afterEach(() => {
    if (broken) rmSync(broken.fsPath, { force: true });
  });

  it('reports schema errors in a *.pipeline.json file without a $schema of its own', async () => {
    const valid = vscode.Uri.joinPath(folder(), 'gpt2-sim.pipeline.json');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(valid));

    broken = vscode.Uri.joinPath(folder(), 'broken.pipeline.json');
    const text = [
      '{',
      '  "version": 2,',
      '  "name": "broken",',
      '  "bogusField": true,',
      '  "inputs": [], "outputs": [], "steps": [], "wires": []',
      '}',
      '',
    ].join('\n');
    writeFileSync(broken.fsPath, text);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(broken));

    const diagnostics = await diagnosticsWhen(broken, (d) => d.some((x) => x.message.includes('bogusField')));
    const onLine = (line: number) => diagnostics.filter((d) => d.range.start.line === line);
    assert.equal(onLine(3).length, 1, 'the unknown property is flagged on its own line');
    assert.equal(onLine(3)[0]!.severity, vscode.DiagnosticSeverity.Warning);
    assert.equal(onLine(1).length, 1, `"version" must be 1: ${JSON.stringify(diagnostics)}`);

    // The language server has answered for the later file, so its verdict on the sample is in.
    assert.deepEqual(vscode.languages.getDiagnostics(valid), []);
  });
});
