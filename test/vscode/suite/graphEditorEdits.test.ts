/**
 * The graph editor in the real workbench, editing with the mouse and the keyboard: steps, wires,
 * names and hooks reach the text, the text's keystrokes and problems reach the graph. Screenshots
 * land in the workbench folder (docs/images/ keeps the good ones).
 */
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { workbench } from './workbench.js';
import { waitFor } from './waitFor.js';
import {
  VIEW_TYPE,
  type Shown,
  state,
  painted,
  openGraph,
  pipelineOf,
  median,
  graphEditorFiles,
} from './graphEditorFixture.js';

describe('Triton Studio graph editor: editing, two-way with its text', () => {
  const { root, workspace, editFile, timings } = graphEditorFiles();

  it('adds a step from the palette: the text gains it, undo takes it back', async () => {
    const doc = await openGraph(vscode.Uri.file(editFile));
    const before = doc.getText();
    await workbench({ kind: 'webviewClick', selector: '.toolbar button[aria-keyshortcuts="A"]' });
    await workbench({ kind: 'webviewClick', selector: '[data-item="preset:sim-llm/model"]' });
    await waitFor('the new step in the text', () => doc.getText().includes('"name": "model"'));
    assert.deepEqual(pipelineOf(doc).steps.at(-1), { name: 'model', kind: 'model', preset: 'sim-llm/model' });
    assert.ok(doc.isDirty);
    await workbench({ kind: 'webviewWaitFor', selector: '[data-node="step:model"]' });
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => doc.getText() === before);
    await workbench({ kind: 'webviewGone', selector: '[data-node="step:model"]' });
  });

  it('shows a missing wire on the right port, draws it with the mouse, and the text gains one line', async () => {
    const doc = await openGraph(vscode.Uri.file(editFile));
    // A hand edit in the text: remove the wire into sim_llm.input_ids.
    const line = '    { "from": "preprocessing.INPUT_ID", "to": "sim_llm.input_ids" },\n';
    const at = doc.getText().indexOf(line);
    assert.ok(at > 0);
    const edit = new vscode.WorkspaceEdit();
    edit.delete(doc.uri, new vscode.Range(doc.positionAt(at), doc.positionAt(at + line.length)));
    await vscode.workspace.applyEdit(edit);
    await painted(doc);
    const port = await workbench<Shown>({
      kind: 'webviewWaitFor',
      selector: '[data-node="step:sim_llm"] [data-port="in:input_ids"].error',
    });
    assert.match(port.title ?? '', /TS-E014: Input "input_ids" of step "sim_llm" is not wired/);
    // Only that port is red.
    await workbench({
      kind: 'webviewGone',
      selector: '[data-node="step:sim_llm"] [data-port="in:input_lengths"].error',
    });
    await workbench({ kind: 'webviewScreenshot', name: 'graph-error-on-port' });

    const textBefore = doc.getText();
    await workbench({ kind: 'webviewWaitFor', selector: '.app:not([data-layout="quick"])' });
    await workbench({
      kind: 'webviewDrag',
      from: '[data-node="step:preprocessing"] [data-port="out:INPUT_ID"] .react-flow__handle',
      to: '[data-node="step:sim_llm"] [data-port="in:input_ids"] .react-flow__handle',
    });
    await waitFor('the wire in the text', () => doc.getText() !== textBefore);
    const added = doc
      .getText()
      .split('\n')
      .filter((l) => !textBefore.split('\n').includes(l));
    assert.deepEqual(added, [
      '    { "from": "postprocessing.OUTPUT", "to": "text_output" },',
      '    { "from": "preprocessing.INPUT_ID", "to": "sim_llm.input_ids" }',
    ]);
    await painted(doc);
    await workbench({ kind: 'webviewGone', selector: '[data-port="in:input_ids"].error' });
    timings.graphEditToTextMs = (await state(doc.uri))!.lastEditToTextMs;
  });

  it('refuses a wire into a fed port of another dtype, saying why, and leaves the text alone', async () => {
    const doc = await openGraph(vscode.Uri.file(editFile));
    const before = doc.getText();
    await workbench({ kind: 'webviewWaitFor', selector: '.app:not([data-layout="quick"])' });
    await workbench({
      kind: 'webviewDrag',
      from: '[data-node="input:text_input"] .react-flow__handle',
      to: '[data-node="step:sim_llm"] [data-port="in:request_output_len"] .react-flow__handle',
    });
    const notice = await workbench<Shown>({ kind: 'webviewWaitFor', selector: '.notice.refused' });
    assert.match(notice.text, /text_input → sim_llm\.request_output_len refused/);
    // Both reasons: the port is fed already, and a STRING would not fit it anyway.
    assert.match(notice.text, /already wired/);
    assert.match(notice.text, /text_input is STRING but sim_llm\.request_output_len expects UINT32/);
    await workbench({ kind: 'webviewScreenshot', name: 'graph-refused-wire' });
    assert.equal(doc.getText(), before);
  });

  it('removes and renames a step with the keyboard and the side form; wires follow', async () => {
    const doc = await openGraph(vscode.Uri.file(editFile));
    // Select with the keyboard (focus the node, Enter), then rename in the side form.
    await workbench({
      kind: 'webviewPress',
      selector: '.react-flow__node[data-id="step:postprocessing"]',
      key: 'Enter',
    });
    await workbench({ kind: 'webviewWaitFor', selector: 'form.step-form', text: 'postprocessing' });
    await workbench({ kind: 'webviewClick', selector: 'form.step-form input[name="name"]' });
    await workbench({ kind: 'webviewPress', key: 'ControlOrMeta+a' });
    for (const key of 'detok') await workbench({ kind: 'webviewPress', key });
    await workbench({ kind: 'webviewPress', key: 'Enter' });
    await waitFor('the rename in the text', () => pipelineOf(doc).steps.some((s) => s.name === 'detok'));
    const wires = pipelineOf(doc).wires;
    assert.ok(wires.some((w) => w.from === 'detok.OUTPUT' && w.to === 'text_output'));
    assert.ok(!doc.getText().includes('postprocessing.'));
    await workbench({ kind: 'webviewWaitFor', selector: '[data-node="step:detok"]' });
    await workbench({ kind: 'webviewScreenshot', name: 'graph-side-form' });
    // Delete with the keyboard: the step and its wires leave the text.
    await workbench({ kind: 'webviewWaitFor', selector: '.react-flow__node.selected[data-id="step:detok"]' });
    await workbench({
      kind: 'webviewPress',
      selector: '.react-flow__node[data-id="step:detok"]',
      key: 'Delete',
    });
    await waitFor('the removal in the text', () => !pipelineOf(doc).steps.some((s) => s.name === 'detok'));
    assert.ok(!pipelineOf(doc).wires.some((w) => w.from.startsWith('detok.') || w.to.startsWith('detok.')));
    await vscode.commands.executeCommand('undo');
    await vscode.commands.executeCommand('undo');
    await waitFor('both undone', () => pipelineOf(doc).steps.some((s) => s.name === 'postprocessing'));
  });

  it('sets a tokenize step’s hooks module in the side form: its HookInputs become ports, and follow the module’s saves', async () => {
    const hooks = join(workspace, 'hooks');
    mkdirSync(hooks, { recursive: true });
    const module = join(hooks, 'chat.ts');
    copyFileSync(join(root, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts'), module);
    try {
      const doc = await openGraph(vscode.Uri.file(editFile));
      await workbench({ kind: 'webviewClick', selector: '.react-flow__node[data-id="step:preprocessing"]' });
      await workbench({ kind: 'webviewWaitFor', selector: 'form.step-form', text: 'preprocessing' });
      // The schema's constraint (a .ts module path) is checked as typed; nothing reaches the text.
      await workbench({
        kind: 'webviewFill',
        selector: 'form.step-form input[name="hooks"]',
        text: 'chat.py',
      });
      const refused = await workbench<Shown>({
        kind: 'webviewWaitFor',
        selector: 'form.step-form .field-error',
      });
      assert.match(refused.text, /\.ts module/);
      await workbench({
        kind: 'webviewFill',
        selector: 'form.step-form input[name="hooks"]',
        text: 'hooks/chat.ts',
      });
      await waitFor('the hooks in the text', () => doc.getText().includes('"hooks": "hooks/chat.ts"'));
      assert.equal(pipelineOf(doc).steps[0]!.name, 'preprocessing');
      const port = await workbench<Shown>({
        kind: 'webviewWaitFor',
        selector: '[data-node="step:preprocessing"] [data-port="in:system_prompt"].from-module',
      });
      assert.match(port.title ?? '', /system_prompt STRING .*\(optional\) \(from the TypeScript module\)/);
      await workbench({ kind: 'webviewScreenshot', name: 'graph-hooks-form' });
      // Open beside, add an input to HookInputs, save: the graph grows that port.
      await workbench({ kind: 'webviewClick', selector: 'form.step-form button[name="open-hooks"]' });
      const editor = await waitFor('the module in a text editor', () =>
        vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === module),
      );
      const field = editor.document.getText().indexOf('system_prompt: string;');
      await editor.edit((e) => e.insert(editor.document.positionAt(field), 'persona: string;\n  '));
      await editor.document.save();
      await workbench({
        kind: 'webviewWaitFor',
        selector: '[data-node="step:preprocessing"] [data-port="in:persona"].from-module',
      });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      rmSync(hooks, { recursive: true, force: true });
    }
  });

  it('follows keystrokes in the text; a broken text keeps the last good graph under a banner', async () => {
    const doc = await vscode.workspace.openTextDocument(editFile);
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('vscode.openWith', doc.uri, VIEW_TYPE, vscode.ViewColumn.Two);
    await painted(doc);
    // Type a description one character at a time (each keystroke a new version to draw).
    const anchor = doc.getText().indexOf('"description": "') + '"description": "'.length;
    const latencies: number[] = [];
    for (const [i, ch] of [...'typed! '].entries()) {
      const t0 = Date.now();
      await editor.edit((e) => e.insert(doc.positionAt(anchor + i), ch));
      const s = await painted(doc);
      latencies.push(s.rendered!.paintedAt - t0);
    }
    timings.keystrokeToGraphMs = {
      median: median(latencies),
      max: Math.max(...latencies),
      samples: latencies,
    };
    // A hand edit that changes the graph: rename a step in the text.
    await editor.edit((e) => {
      const text = doc.getText();
      e.replace(
        new vscode.Range(doc.positionAt(0), doc.positionAt(text.length)),
        text.replaceAll('sim_llm', 'llm'),
      );
    });
    await workbench({ kind: 'webviewWaitFor', selector: '[data-node="step:llm"]' });
    // Half-typed JSON: the graph stays, a banner says why.
    const brace = doc.getText().lastIndexOf('}');
    await editor.edit((e) => e.delete(new vscode.Range(doc.positionAt(brace), doc.positionAt(brace + 1))));
    const s = await painted(doc);
    assert.equal(s.rendered?.banner, true);
    const banner = await workbench<Shown>({ kind: 'webviewWaitFor', selector: '.banner' });
    assert.match(banner.text, /not a valid pipeline right now/);
    await workbench({ kind: 'webviewWaitFor', selector: '[data-node="step:llm"]' });
    await workbench({ kind: 'screenshot', name: 'graph-banner-beside-text' });
    await vscode.commands.executeCommand('undo');
    await painted(doc);
    await workbench({ kind: 'webviewGone', selector: '.banner' });
  });

  it('clicking a problem selects its node and its range in the text; the text cursor selects graph elements', async () => {
    const doc = await vscode.workspace.openTextDocument(editFile);
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('vscode.openWith', doc.uri, VIEW_TYPE, vscode.ViewColumn.Two);
    await painted(doc);
    // An unknown preset: TS-E050 on step sim_llm.
    await editor.edit((e) => {
      const at = doc.getText().indexOf('"sim-llm/model"');
      e.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 15)), '"sim-llm/modle"');
    });
    await painted(doc);
    await workbench({ kind: 'webviewClick', selector: '.problems-button' });
    await workbench({ kind: 'webviewClick', selector: '.problem[data-code="TS-E050"]' });
    await workbench({
      kind: 'webviewWaitFor',
      selector: '.react-flow__node.selected[data-id="step:sim_llm"]',
    });
    const line = doc.positionAt(doc.getText().indexOf('"sim-llm/modle"')).line;
    await waitFor(
      'the range selected in the text',
      () => editor.selection.start.line === line && !editor.selection.isEmpty,
    );
    // The text cursor on a step selects it in the graph.
    const pre = doc.positionAt(doc.getText().indexOf('"sim-llm/preprocessing"'));
    editor.selection = new vscode.Selection(pre, pre);
    await workbench({
      kind: 'webviewWaitFor',
      selector: '.react-flow__node.selected[data-id="step:preprocessing"]',
    });
    await vscode.commands.executeCommand('undo');
  });
});
