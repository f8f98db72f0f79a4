/**
 * Restricted Mode in real VS Code: trust-needing commands refused with a reason, editing still
 * working, then trusted.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { restrictedMessage, type RestrictedOutcome } from '../../../extension/commands/index.js';
import type { GraphEditorState } from '../../../extension/graphEditor/host/provider.js';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import { expectedAnswer } from './simLlm.js';
import { workbench } from './workbench.js';
import { waitFor } from './waitFor.js';

const EXTENSION_ID = 'triton-studio.triton-studio';

// Runs in a workspace without any *.pipeline.json, opened with Workspace Trust on and not yet
// trusted (runTests.ts, second run): the command alone must activate the extension, Restricted
// Mode must refuse what runs code from the workspace while editing and validation go on, and
// once the user trusts the folder the same command answers.
describe('Triton Studio in Restricted Mode (an untrusted workspace without a pipeline file), then trusted', () => {
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;

  it('stays inactive until a command runs; "Send Prompt" activates it and is refused with the reason', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, 'the extension is not loaded');
    assert.equal(vscode.workspace.isTrusted, false, 'the workspace should open in Restricted Mode');
    // Give workspaceContains its chance to (wrongly) activate the extension first.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(extension.isActive, false, 'activated without a pipeline file or a command');

    const outcome = await vscode.commands.executeCommand<RestrictedOutcome>(
      'tritonStudio.sendPrompt',
      'Refused in Restricted Mode.',
    );
    assert.equal(extension.isActive, true);
    assert.deepEqual(outcome, { ok: false, restricted: true, error: restrictedMessage('Send Prompt') });
    const toast = await workbench<{ message: string; buttons: string[] }>({
      kind: 'waitForNotification',
      text: '"Send Prompt" is disabled in Restricted Mode',
    });
    assert.match(toast.message, /Trust the workspace to use it; editing and validating pipelines work/);
    assert.deepEqual(toast.buttons, ['Manage Workspace Trust']);
  });

  it('refuses generate, build, server start, deploy and the latency test, and writes nothing', async () => {
    for (const [id, title] of [
      ['tritonStudio.generate', 'Generate'],
      ['tritonStudio.build', 'Build Backends'],
      ['tritonStudio.startLocalServer', 'Start Local Server'],
      ['tritonStudio.deploy', 'Deploy'],
      ['tritonStudio.runLatencyTest', 'Run Latency Test'],
    ] as const) {
      const outcome = await vscode.commands.executeCommand<RestrictedOutcome>(id);
      assert.deepEqual(outcome, { ok: false, restricted: true, error: restrictedMessage(title) }, id);
    }
    assert.equal(existsSync(join(folder(), '.triton-studio')), false, 'a refused command wrote files');
  });

  it('still validates a pipeline into Problems and edits it in the graph editor', async () => {
    const file = join(folder(), 'restricted.pipeline.json');
    const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const sample = readFileSync(join(root, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8').replace(
      /^\s*"\$schema": .*\n/m,
      '',
    );
    writeFileSync(file, sample.replace('"preprocessing.QUERY"', '"preprocessing.QUERYX"'));
    try {
      const uri = vscode.Uri.file(file);
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      const problems = await waitFor('Triton Studio diagnostics', () => {
        const ds = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Triton Studio');
        return ds.length > 0 ? ds : undefined;
      });
      assert.ok(
        problems.some((d) => d.code === 'TS-E011'),
        JSON.stringify(problems),
      );
      await vscode.commands.executeCommand('vscode.openWith', uri, 'tritonStudio.graphEditor');
      const state = await waitFor('the graph', async () => {
        const s = await vscode.commands.executeCommand<GraphEditorState | undefined>(
          'tritonStudio.graphEditor.state',
          uri,
        );
        return s?.rendered ? s : undefined;
      });
      assert.equal(state.rendered?.banner, false);
      await workbench({ kind: 'screenshot', name: 'restricted-mode' });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      rmSync(file, { force: true });
    }
  });

  it('once the folder is trusted (Manage Workspace Trust → Trust), Send Prompt answers', async () => {
    const granted = new Promise<void>((r) => vscode.workspace.onDidGrantWorkspaceTrust(() => r()));
    await workbench({ kind: 'runFromPalette', title: 'Workspaces: Manage Workspace Trust' });
    await workbench({
      kind: 'click',
      selector: '.workspace-trust-editor .monaco-button:text-is("Trust")',
    });
    await granted;
    assert.equal(vscode.workspace.isTrusted, true);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const prompt = 'Activated by the command alone.';
    const outcome = await vscode.commands.executeCommand<SendPromptOutcome>(
      'tritonStudio.sendPrompt',
      prompt,
    );
    assert.ok(outcome?.ok, `the prompt failed: ${outcome && !outcome.ok ? outcome.error : 'no outcome'}`);
    assert.equal(outcome.text, await expectedAnswer(prompt));
  });
});
