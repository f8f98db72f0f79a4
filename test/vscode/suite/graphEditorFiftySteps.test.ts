/**
 * The graph editor in the real workbench, a 50-step pipeline opens and is interactive quickly,
 * timed against an empty webview. Screenshots land in the workbench folder (docs/images/ keeps the
 * good ones).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { workbench } from './workbench.js';
import { waitFor } from './waitFor.js';
import { VIEW_TYPE, state, painted, pipelineOf, median, graphEditorFiles } from './graphEditorFixture.js';

describe('Triton Studio graph editor: a 50-step pipeline', () => {
  const { fiftyFile, timings } = graphEditorFiles();

  it('opens a 50-step pipeline and is interactive quickly; edits reach the text and keystrokes the graph quickly', async () => {
    // What any webview costs to open in this workbench (VS Code registers a service worker per
    // webview), for comparison: the graph editor's own share is the rest.
    const e0 = Date.now();
    const empty = vscode.window.createWebviewPanel(
      'tritonStudio.test.empty',
      'empty',
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
      },
    );
    const up = new Promise<number>((r) => empty.webview.onDidReceiveMessage(() => r(Date.now())));
    empty.webview.html = `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-x'"><script nonce="x">requestAnimationFrame(() => setTimeout(() => acquireVsCodeApi().postMessage('up')))</script>`;
    const emptyWebviewMs = (await up) - e0;
    empty.dispose();

    const uri = vscode.Uri.file(fiftyFile);
    const t0 = Date.now();
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    const doc = await vscode.workspace.openTextDocument(uri);
    const s = await painted(doc, 'the 50-step graph');
    assert.equal(s.rendered?.nodes, 80);
    assert.equal(s.rendered?.edges, 140);
    const openMs = s.rendered!.paintedAt - t0;
    const rel = (m: Record<string, number | undefined>) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v === undefined ? undefined : v - t0]));
    // Interactive: a click selects a node and its form appears.
    await workbench({ kind: 'webviewClick', selector: '.react-flow__node[data-id="step:pre_0"]' });
    await workbench({ kind: 'webviewWaitFor', selector: 'form.step-form', text: 'pre_0' });
    // Graph edit → text, ten times: toggle dynamic batching in the form.
    const editLatencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const v = doc.version;
      await workbench({ kind: 'webviewClick', selector: 'form.step-form input[name="dynamicBatching"]' });
      await waitFor('the text change', () => doc.version > v);
      await painted(doc);
      editLatencies.push((await state(uri))!.lastEditToTextMs!);
    }
    await workbench({ kind: 'webviewScreenshot', name: 'graph-fifty-steps' });
    // Text → graph, ten keystrokes into a step's description (the graph beside the text).
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.Beside);
    const anchor = doc.getText().indexOf('"description": "') + '"description": "'.length;
    const keyLatencies: number[] = [];
    for (const [i, ch] of [...'typed here'].entries()) {
      const k0 = Date.now();
      await editor.edit((e) => e.insert(doc.positionAt(anchor + i), ch));
      keyLatencies.push((await painted(doc)).rendered!.paintedAt - k0);
    }
    assert.match(pipelineOf(doc).steps[0]!.name, /^pre_0$/);
    const stats = (xs: number[]) => ({ median: median(xs), max: Math.max(...xs), samples: xs });
    timings.fiftySteps = {
      emptyWebviewMs,
      openToPaintedMs: openMs,
      resolveToPaintedMs: s.openMs,
      openStages: { host: rel(s.marks), webview: rel(s.rendered!.marks) },
      graphEditToTextMs: stats(editLatencies),
      keystrokeToGraphMs: stats(keyLatencies),
    };
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });
});
