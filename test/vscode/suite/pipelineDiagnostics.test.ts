/**
 * Pipeline diagnostics in real VS Code: validatePipeline's problems in the Problems panel as the
 * file changes.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';

const SOURCE = 'Triton Studio';

/** Triton Studio's diagnostics of `uri` once `ready` accepts them (validation is debounced). */
async function ours(
  uri: vscode.Uri,
  ready: (d: vscode.Diagnostic[]) => boolean,
  timeoutMs = 20_000,
): Promise<vscode.Diagnostic[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const diagnostics = vscode.languages.getDiagnostics(uri).filter((d) => d.source === SOURCE);
    if (ready(diagnostics)) return diagnostics;
    if (Date.now() > deadline) {
      throw new Error(`no matching ${SOURCE} diagnostics for ${uri.fsPath}: ${JSON.stringify(diagnostics)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Triton Studio extension: pipeline diagnostics (validatePipeline) in Problems', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
  let file: vscode.Uri;

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (file) rmSync(file.fsPath, { force: true });
  });

  it('shows a TS-E011 error on the wire that names a missing port, and clears it once fixed', async () => {
    const sample = readFileSync(vscode.Uri.joinPath(folder(), 'gpt2-sim.pipeline.json').fsPath, 'utf8');
    file = vscode.Uri.joinPath(folder(), 'wired-wrong.pipeline.json');
    writeFileSync(file.fsPath, sample.replace('"preprocessing.QUERY"', '"preprocessing.QUERYX"'));
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);

    const [d, ...rest] = await ours(file, (ds) => ds.length > 0);
    assert.deepEqual(rest, [], 'one mistake, one diagnostic');
    assert.equal(d!.code, 'TS-E011');
    assert.equal(d!.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(doc.getText(d!.range), '"preprocessing.QUERYX"');
    assert.match(d!.message, /QUERY/);

    // Typing the fix clears it without a save.
    await editor.edit((e) => e.replace(d!.range, '"preprocessing.QUERY"'));
    await ours(file, (ds) => ds.length === 0);
    await doc.save(); // so closing the editor asks nothing
  });

  it('leaves JSON syntax and schema errors to the JSON language service (no duplicates)', async () => {
    file = vscode.Uri.joinPath(folder(), 'schema-wrong.pipeline.json');
    writeFileSync(
      file.fsPath,
      '{ "version": 2, "name": "x", "inputs": [], "outputs": [], "steps": [], "wires": [] }\n',
    );
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    // The JSON service flags "version"; give the debounced validation time to have run too.
    const deadline = Date.now() + 20_000;
    while (!vscode.languages.getDiagnostics(file).some((d) => d.source !== SOURCE) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(
      vscode.languages.getDiagnostics(file).filter((d) => d.source === SOURCE),
      [],
    );
  });

  it('a hooks module that does not compile: TS-E083 on the step, TS-E080 in the module, both cleared by fixing and saving the module', async () => {
    const sample = readFileSync(vscode.Uri.joinPath(folder(), 'gpt2-sim.pipeline.json').fsPath, 'utf8');
    const hooks = vscode.Uri.joinPath(folder(), 'hooks', 'cleanup.ts');
    mkdirSync(vscode.Uri.joinPath(folder(), 'hooks').fsPath, { recursive: true });
    writeFileSync(
      hooks.fsPath,
      'export function afterDecode(text: string): string {\n  return text.replace(/ +/g, " ");\n}\n',
    );
    file = vscode.Uri.joinPath(folder(), 'hooked.pipeline.json');
    writeFileSync(
      file.fsPath,
      sample.replace(
        '"skipSpecialTokens": true',
        '"skipSpecialTokens": true,\n      "hooks": "hooks/cleanup.ts"',
      ),
    );
    try {
      const doc = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(doc);
      const [d] = await ours(file, (ds) => ds.length > 0);
      assert.equal(d!.code, 'TS-E083');
      assert.equal(doc.getText(d!.range), '"hooks/cleanup.ts"');
      assert.match(d!.message, /regular expressions/);

      // The module itself, in its own Problems, at the exact range.
      const module = await vscode.workspace.openTextDocument(hooks);
      const editor = await vscode.window.showTextDocument(module);
      const [m] = await ours(hooks, (ds) => ds.length > 0);
      assert.equal(m!.code, 'TS-E080');
      assert.equal(module.getText(m!.range), '/ +/g');

      // Fixed within the subset and saved: both go away.
      await editor.edit((e) => e.replace(m!.range, '"  "'));
      await module.save();
      await ours(hooks, (ds) => ds.length === 0);
      await ours(file, (ds) => ds.length === 0);
    } finally {
      rmSync(hooks.fsPath, { force: true });
    }
  });

  it('reports nothing for the valid sample', async () => {
    const sample = vscode.Uri.joinPath(folder(), 'gpt2-sim.pipeline.json');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(sample));
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(
      vscode.languages.getDiagnostics(sample).filter((d) => d.source === SOURCE),
      [],
    );
  });
});
