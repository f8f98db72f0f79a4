import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import { expectedAnswer } from './simLlm.js';

// Runs in a workspace without any *.pipeline.json (runTests.ts, second run), so activation by
// workspaceContains cannot happen: the command alone must activate the extension.
describe('Triton Studio extension: activation by its command (workspace without a pipeline file)', () => {
  it('stays inactive until "Triton Studio: Send Prompt" runs, which activates it and answers', async () => {
    const extension = vscode.extensions.getExtension('triton-studio.triton-studio');
    assert.ok(extension, 'the extension is not loaded');
    // Give workspaceContains its chance to (wrongly) activate the extension first.
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(extension.isActive, false, 'activated without a pipeline file or a command');

    const prompt = 'Activated by the command alone.';
    const outcome = await vscode.commands.executeCommand<SendPromptOutcome>(
      'tritonStudio.sendPrompt',
      prompt,
    );
    assert.equal(extension.isActive, true);
    assert.ok(outcome?.ok, `the prompt failed: ${outcome && !outcome.ok ? outcome.error : 'no outcome'}`);
    assert.equal(outcome.text, await expectedAnswer(prompt));
  });
});
