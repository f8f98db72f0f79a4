import * as assert from 'node:assert/strict';
import { sep } from 'node:path';
import * as vscode from 'vscode';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import { expectedAnswer } from './simLlm.js';
import { TEST_ENV } from './testEnv.js';

// Runs on a clean profile where the extension was installed from the packaged .vsix (runTests.ts,
// third run): it must be the installed copy that loads, activates and answers.
describe('Triton Studio installed from its .vsix on a clean profile', () => {
  it('loads from the extensions folder, not from the checkout', () => {
    const extension = vscode.extensions.getExtension('triton-studio.triton-studio');
    assert.ok(extension, 'the installed extension is not loaded');
    const extensionsDir = process.env[TEST_ENV.vsixExtensionsDir]!;
    assert.ok(
      extension.extensionPath.startsWith(extensionsDir + sep),
      `${extension.extensionPath} is not under ${extensionsDir}`,
    );
  });

  it('activates and answers a prompt exactly (its bundle carries its dependencies and the .proto files)', async () => {
    const extension = vscode.extensions.getExtension('triton-studio.triton-studio')!;
    const prompt = 'Installed from the vsix.';
    const outcome = await vscode.commands.executeCommand<SendPromptOutcome>(
      'tritonStudio.sendPrompt',
      prompt,
    );
    assert.equal(extension.isActive, true);
    assert.ok(outcome?.ok, `the prompt failed: ${outcome && !outcome.ok ? outcome.error : 'no outcome'}`);
    assert.equal(outcome.text, await expectedAnswer(prompt));
  });
});
