/**
 * The extension in real VS Code: it activates by itself, registers its commands and declares its
 * settings.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { testEnv } from './testEnv.js';
import { waitFor } from './waitFor.js';

const EXTENSION_ID = 'triton-studio.triton-studio';

describe('Triton Studio extension: activation and contributions', () => {
  it('activates by itself in a workspace holding a *.pipeline.json file', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not loaded`);
    // Nothing in the suite has run a command yet: only workspaceContains can have activated it.
    await waitFor('the extension to activate', () => (extension.isActive ? true : undefined));
  });

  it('registers "Triton Studio: Send Prompt" as tritonStudio.sendPrompt', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('tritonStudio.sendPrompt'));
    const contributed = (
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
        contributes: { commands: { command: string; title: string; category: string }[] };
      }
    ).contributes.commands;
    assert.deepEqual(
      contributed.find((c) => c.command === 'tritonStudio.sendPrompt'),
      { command: 'tritonStudio.sendPrompt', title: 'Send Prompt', category: 'Triton Studio' },
    );
  });

  it('declares its settings with defaults and reads the workspace values', () => {
    const config = vscode.workspace.getConfiguration('tritonStudio');
    assert.equal(config.inspect('serverUrl')?.defaultValue, '127.0.0.1:8001');
    assert.equal(config.inspect('model')?.defaultValue, '');
    assert.equal(config.inspect('maxTokens')?.defaultValue, 16);
    assert.equal(config.get('serverUrl'), testEnv('serverUrl'));
    assert.equal(config.get('model'), testEnv('model'));
    assert.equal(config.get('maxTokens'), Number(testEnv('maxTokens')));
  });
});
