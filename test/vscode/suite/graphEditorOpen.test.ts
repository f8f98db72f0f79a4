/**
 * The graph editor in the real workbench, opening: every sample as a graph, typed ports and
 * badges, a wide graph's zoom, the title-bar button. Screenshots land in the workbench folder
 * (docs/images/ keeps the good ones).
 */
import * as assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { workbench } from './workbench.js';
import {
  VIEW_TYPE,
  type Shown,
  state,
  painted,
  openGraph,
  pipelineOf,
  graphEditorFiles,
} from './graphEditorFixture.js';

describe('Triton Studio graph editor: opening', () => {
  const { root, editFile } = graphEditorFiles();

  it('opens every sample as a graph: ensemble inputs/outputs and steps as nodes, wires as edges', async () => {
    const folders = readdirSync(join(root, 'samples'), { withFileTypes: true }).filter((e) =>
      e.isDirectory(),
    );
    const samples = folders
      .map((e) => e.name)
      .flatMap((d) =>
        readdirSync(join(root, 'samples', d))
          .filter((f) => f.endsWith('.pipeline.json'))
          .map((f) => join(root, 'samples', d, f)),
      );
    assert.ok(samples.length >= 6, `samples: ${samples.join(', ')}`);
    for (const file of samples) {
      const doc = await openGraph(vscode.Uri.file(file));
      const p = pipelineOf(doc);
      const s = (await state(doc.uri))!;
      assert.equal(s.rendered?.nodes, p.inputs.length + p.steps.length + p.outputs.length, file);
      assert.equal(s.rendered?.edges, p.wires.length, file);
      assert.equal(s.rendered?.banner, false, file);
      await workbench({ kind: 'webviewWaitFor', selector: `[data-node="step:${p.steps[0]!.name}"]` });
      if (file.endsWith('gpt2-sim.pipeline.json'))
        await workbench({ kind: 'webviewScreenshot', name: 'graph-gpt2-sim' });
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  it('shows typed ports (dtype, dims, optional marked), batching, instances and decoupled on the nodes', async () => {
    await openGraph(vscode.Uri.file(join(root, 'samples/gpt2-tensorrt-llm/gpt2-tensorrt-llm.pipeline.json')));
    const port = await workbench<Shown>({
      kind: 'webviewWaitFor',
      selector: '[data-node="step:tensorrt_llm"] [data-port="in:input_ids"]',
    });
    assert.match(port.text, /input_ids INT32 \[-1\]/);
    const optional = await workbench<Shown>({
      kind: 'webviewWaitFor',
      selector: '[data-node="step:tensorrt_llm"] .port.optional',
    });
    assert.match(optional.title ?? '', /\(optional\)/);
    const badges = await workbench<Shown>({
      kind: 'webviewWaitFor',
      selector: '[data-node="step:tensorrt_llm"] .badges',
    });
    assert.match(badges.text, /decoupled/);
    assert.match(badges.text, /batch ≤\d+ · dynamic/);
    assert.match(badges.text, /\d× (GPU|CPU|AUTO|MODEL)/);
  });

  it('a graph wider than its panel opens at the legible zoom from its inputs, and says where the rest is', async () => {
    // Beside the text, the panel is half the window: gpt2-sim's five columns do not fit in it at 0.8.
    const doc = await vscode.workspace.openTextDocument(editFile);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('vscode.openWith', doc.uri, VIEW_TYPE, vscode.ViewColumn.Beside);
    await painted(doc);
    await workbench({ kind: 'webviewWaitFor', selector: '.app:not([data-layout="quick"])' });
    await workbench({ kind: 'webviewWaitFor', selector: '.offscreen-hints[data-zoom="0.80"]' });
    const right = await workbench<Shown>({ kind: 'webviewWaitFor', selector: '.offscreen.right' });
    const [, count] = /^(\d+) more →$/.exec(right.text.trim()) ?? [];
    assert.ok(count && Number(count) >= 1, `right edge: ${right.text}`);
    assert.match(right.title ?? '', new RegExp(`^${count} nodes? to the right: show them$`));
    // Opened from the inputs: nothing is cut off on the left.
    await workbench({ kind: 'webviewGone', selector: '.offscreen.left' });
    await workbench({ kind: 'webviewScreenshot', name: 'graph-wide-opening' });
    // Each click pans by up to a canvas: a few reach the outputs, and the inputs are then the
    // ones beyond the (left) edge; the zoom stays legible.
    const hints = async () =>
      (await workbench<Shown>({ kind: 'webviewWaitFor', selector: '.offscreen-hints' })).text;
    let clicks = 0;
    for (; (await hints()).includes('→') && clicks < 6; clicks++) {
      await workbench({ kind: 'webviewClick', selector: '.offscreen.right' });
      await new Promise((r) => setTimeout(r, 500)); // the 200 ms pan
    }
    assert.ok(
      clicks >= 1 && !(await hints()).includes('→'),
      `still more to the right after ${clicks} clicks`,
    );
    const left = await workbench<Shown>({ kind: 'webviewWaitFor', selector: '.offscreen.left' });
    assert.match(left.text, /^← \d+ more$/);
    await workbench({ kind: 'webviewWaitFor', selector: '.offscreen-hints[data-zoom="0.80"]' });
    await workbench({ kind: 'webviewScreenshot', name: 'graph-wide-after-panning' });
  });

  it('opens beside the text from the title-bar button of a pipeline file', async () => {
    const doc = await vscode.workspace.openTextDocument(editFile);
    await vscode.window.showTextDocument(doc);
    await workbench({
      kind: 'click',
      selector: '.editor-actions .action-label[aria-label*="Open Graph Editor"]',
    });
    await painted(doc);
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    assert.ok(tabs.some((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === VIEW_TYPE));
    assert.ok(tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === editFile));
    assert.equal(vscode.window.tabGroups.all.length, 2, 'graph beside the text');
  });
});
