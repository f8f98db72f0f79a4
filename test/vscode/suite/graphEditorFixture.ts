/**
 * Shared set-up of the graphEditor*.test.ts suites: opening a pipeline in the graph editor and
 * waiting until its webview has painted the text, and `graphEditorFiles`, which gives each suite
 * the sample to edit (reset before every test) and a 50-step pipeline, and writes the timings all
 * of them gather to graph-editor-timings.json.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { GraphEditorState } from '../../../extension/graphEditor/host/provider.js';
import { workbenchDir } from './workbench.js';
import { waitFor } from './waitFor.js';

export const EXTENSION_ID = 'triton-studio.triton-studio';
export const VIEW_TYPE = 'tritonStudio.graphEditor';

export interface Shown {
  text: string;
  title: string | null;
}

export const state = (uri: vscode.Uri) =>
  vscode.commands.executeCommand<GraphEditorState | undefined>('tritonStudio.graphEditor.state', uri);

/** Waits until the webview has painted the document's current version; returns the editor's state. */
export async function painted(
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

/**
 * What the graph editor's suites measure, together: each suite is bundled with its own copy of
 * this module, so the one record lives on the extension host's global object.
 */
const shared = globalThis as { graphEditorTimings?: Record<string, unknown> & { stuckWebviews: number } };
const timings = (shared.graphEditorTimings ??= { stuckWebviews: 0 });

export async function openGraph(uri: vscode.Uri): Promise<vscode.TextDocument> {
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
    // Webviews that never loaded; reported with the timings.
    timings.stuckWebviews++;
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }
  await painted(doc, `the graph of ${uri.fsPath}`);
  return doc;
}

export function pipelineOf(doc: vscode.TextDocument): {
  inputs: unknown[];
  outputs: unknown[];
  steps: { name: string }[];
  wires: { from: string; to: string }[];
} {
  return JSON.parse(doc.getText());
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** 50 steps: ten gpt2-sim-like chains (tokenize → 3 sim-llm models → detokenize), 140 wires. */
export function fiftyStepPipeline(): string {
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

/** Registers the suite's hooks (call it inside `describe`): the files it edits and the timings it keeps. */
export function graphEditorFiles() {
  const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
  const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const editFile = join(workspace, 'graph-edit.pipeline.json');
  const fiftyFile = join(workspace, 'fifty-steps.pipeline.json');
  const sampleText = readFileSync(join(root, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8').replace(
    /^\s*"\$schema": .*\n/m,
    '',
  );

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
    writeFileSync(join(workbenchDir(), 'graph-editor-timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
    console.log(`[graph editor] timings ${JSON.stringify(timings)}`);
  });
  return { root, workspace, editFile, fiftyFile, sampleText, timings };
}
