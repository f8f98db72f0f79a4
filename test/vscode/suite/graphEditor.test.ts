/**
 * The graph editor in the real workbench: opened on every sample, edited with the mouse and the
 * keyboard in its webview (Playwright, through the launcher), kept two-way with the text, and
 * timed. Screenshots land in the workbench folder (docs/images/ keeps the good ones).
 */
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { GraphEditorState } from '../../../extension/graphEditor/host/provider.js';
import type { ContrastFailure } from '../contrast.js';
import { workbench, workbenchDir } from './workbench.js';
import { waitFor } from './waitFor.js';

const EXTENSION_ID = 'triton-studio.triton-studio';
const VIEW_TYPE = 'tritonStudio.graphEditor';

interface Shown {
  text: string;
  title: string | null;
}

const state = (uri: vscode.Uri) =>
  vscode.commands.executeCommand<GraphEditorState | undefined>('tritonStudio.graphEditor.state', uri);

/** Waits until the webview has painted the document's current version; returns the editor's state. */
async function painted(
  doc: vscode.TextDocument,
  what = 'the graph to show the text',
): Promise<GraphEditorState> {
  let last: GraphEditorState | undefined;
  try {
    return await waitFor(what, async () => {
      const s = (last = await state(doc.uri));
      return s?.rendered && s.rendered.version >= doc.version ? s : undefined;
    });
  } catch (e) {
    throw new Error(
      `${(e as Error).message} (text version ${doc.version}; the editor: ${JSON.stringify(last)})`,
    );
  }
}

/** Webviews that never loaded (see openGraph); reported with the timings. */
let stuckWebviews = 0;

async function openGraph(uri: vscode.Uri): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(uri);
  for (let attempt = 1; ; attempt++) {
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    // code-server registers a service worker per webview; now and then the new one never takes
    // control ("Waiting for controllerchange" in the console) and the page never loads, before
    // any of the editor's code runs. Reopening gets a new one.
    const loaded = await waitFor(
      'the page to load',
      async () => (await state(uri))?.marks.readyAt,
      8_000,
    ).then(
      () => true,
      () => false,
    );
    if (loaded || attempt === 2) break;
    stuckWebviews++;
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }
  await painted(doc, `the graph of ${uri.fsPath}`);
  return doc;
}

function pipelineOf(doc: vscode.TextDocument): {
  inputs: unknown[];
  outputs: unknown[];
  steps: { name: string }[];
  wires: { from: string; to: string }[];
} {
  return JSON.parse(doc.getText());
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** 50 steps: ten gpt2-sim-like chains (tokenize → 3 sim-llm models → detokenize), 140 wires. */
function fiftyStepPipeline(): string {
  const inputs = [];
  const outputs = [];
  const steps = [];
  const wires = [];
  for (let c = 0; c < 10; c++) {
    inputs.push(
      { name: `text_${c}`, dataType: 'STRING', dims: [1] },
      { name: `max_tokens_${c}`, dataType: 'INT32', dims: [1] },
    );
    outputs.push({ name: `text_output_${c}`, dataType: 'STRING', dims: [-1] });
    steps.push({
      name: `pre_${c}`,
      kind: 'tokenize',
      preset: 'sim-llm/preprocessing',
      tokenizer: 'gpt2',
      description: '',
    });
    wires.push(
      { from: `text_${c}`, to: `pre_${c}.QUERY` },
      { from: `max_tokens_${c}`, to: `pre_${c}.REQUEST_OUTPUT_LEN` },
    );
    for (let m = 0; m < 3; m++) {
      steps.push({ name: `llm_${c}_${m}`, kind: 'model', preset: 'sim-llm/model' });
      wires.push(
        { from: `pre_${c}.INPUT_ID`, to: `llm_${c}_${m}.input_ids` },
        { from: `pre_${c}.REQUEST_INPUT_LEN`, to: `llm_${c}_${m}.input_lengths` },
        { from: `pre_${c}.REQUEST_OUTPUT_LEN`, to: `llm_${c}_${m}.request_output_len` },
      );
    }
    steps.push({
      name: `post_${c}`,
      kind: 'detokenize',
      preset: 'sim-llm/postprocessing',
      tokenizer: 'gpt2',
    });
    wires.push(
      { from: `llm_${c}_0.output_ids`, to: `post_${c}.TOKENS_BATCH` },
      { from: `llm_${c}_0.sequence_length`, to: `post_${c}.SEQUENCE_LENGTH` },
      { from: `post_${c}.OUTPUT`, to: `text_output_${c}` },
    );
  }
  return `${JSON.stringify({ version: 1, name: 'fifty_steps', maxBatchSize: 8, inputs, outputs, steps, wires }, null, 2)}\n`;
}

describe('Triton Studio graph editor (the pipeline as a typed graph, two-way with its text)', () => {
  const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const editFile = join(workspace, 'graph-edit.pipeline.json');
  const fiftyFile = join(workspace, 'fifty-steps.pipeline.json');
  const sampleText = readFileSync(join(root, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8').replace(
    /^\s*"\$schema": .*\n/m,
    '',
  );
  const timings: Record<string, unknown> = {};

  before(() => {
    writeFileSync(editFile, sampleText);
    writeFileSync(fiftyFile, fiftyStepPipeline());
  });

  beforeEach(async () => {
    // One editor group again (a test may have opened the graph beside the text).
    await vscode.commands.executeCommand('workbench.action.closeAllGroups');
    // Each test starts from the sample's text, saved (the previous one may have left edits).
    const doc = await vscode.workspace.openTextDocument(editFile);
    if (doc.getText() !== sampleText || doc.isDirty) {
      const reset = new vscode.WorkspaceEdit();
      reset.replace(
        doc.uri,
        new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)),
        sampleText,
      );
      await vscode.workspace.applyEdit(reset);
      await doc.save();
    }
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    rmSync(editFile, { force: true });
    rmSync(fiftyFile, { force: true });
    timings.stuckWebviews = stuckWebviews;
    writeFileSync(join(workbenchDir(), 'graph-editor-timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
    console.log(`[graph editor] timings ${JSON.stringify(timings)}`);
  });

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

  it('reads in light, dark and both high-contrast themes: every text at least 4.5:1 (WCAG AA), the side form too', async () => {
    const config = vscode.workspace.getConfiguration('workbench');
    const doc = await openGraph(vscode.Uri.file(editFile));
    const failures: string[] = [];
    const contrast = async (theme: string, selector: string) => {
      const measured = await workbench<{ checked: number; failures: ContrastFailure[] }>({
        kind: 'webviewContrast',
        selector,
        minimum: 4.5,
      });
      assert.ok(measured.checked > 5, `${theme}: only ${measured.checked} texts under ${selector}`);
      for (const f of measured.failures)
        failures.push(`${theme}: "${f.text}" ${f.ratio}:1 (${f.color} on ${f.background}) at ${f.where}`);
    };
    try {
      for (const [theme, name] of [
        ['Default Light Modern', 'graph-theme-light'],
        ['Default Dark Modern', 'graph-theme-dark'],
        ['Default High Contrast', 'graph-theme-high-contrast'],
        ['Default High Contrast Light', 'graph-theme-high-contrast-light'],
      ] as const) {
        await config.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
        await new Promise((r) => setTimeout(r, 1_500));
        await painted(doc);
        await workbench({ kind: 'screenshot', name });
        await contrast(theme, '.app');
        await workbench({ kind: 'webviewClick', selector: '[data-node="step:preprocessing"] .node-name' });
        await workbench({ kind: 'webviewWaitFor', selector: '.side .step-form' });
        await contrast(theme, '.side');
        // An empty corner of the canvas: nothing selected, the side form closes.
        await workbench({ kind: 'webviewClick', selector: '.react-flow__pane', position: { x: 6, y: 6 } });
        await workbench({ kind: 'webviewGone', selector: '.side' });
      }
    } finally {
      await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.deepEqual(failures, []);
  });

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
