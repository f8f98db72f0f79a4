import * as assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { Tokenizer } from 'tokenizers';
import * as vscode from 'vscode';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import { testEnv } from './testEnv.js';
import { OUTPUT_PANEL_TEXT, SETTINGS_EDITOR, workbench } from './workbench.js';

const TITLE = 'Triton Studio: Send Prompt';

/** The gpt2-sim answer: the prompt's GPT-2 ids cycled to max_tokens, decoded (see sendPrompt.test.ts). */
async function expectedAnswer(prompt: string): Promise<string> {
  const reference = Tokenizer.fromFile(testEnv('referenceTokenizer'));
  const ids = (await reference.encode(prompt, null, { addSpecialTokens: false })).getIds();
  const maxTokens = Number(testEnv('maxTokens'));
  return reference.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('Triton Studio in the workbench UI (keys, panels and notifications as a user sees them)', () => {
  beforeEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('runs from the command palette, takes the prompt from the input box and shows the answer in the output panel', async () => {
    const prompt = 'Hello from the command palette!';
    const answer = await expectedAnswer(prompt);
    await workbench({ kind: 'runFromPalette', title: TITLE });
    await workbench({ kind: 'answerInputBox', title: TITLE, text: prompt });
    // The block the output channel prints for this prompt, answer and latency line included.
    const shown = await workbench<string>({
      kind: 'waitForText',
      selector: OUTPUT_PANEL_TEXT,
      text: `prompt: ${prompt} answer: ${answer} latency`,
    });
    assert.match(
      shown,
      new RegExp(`${testEnv('model')} @ ${testEnv('serverUrl')} · max_tokens ${testEnv('maxTokens')}`),
    );
    await workbench({ kind: 'screenshot', name: 'send-prompt' });
  });

  it('shows an unreachable server as an error notification whose button opens the setting to change', async () => {
    const config = vscode.workspace.getConfiguration('tritonStudio');
    const unreachable = `127.0.0.1:${await closedPort()}`;
    await config.update('serverUrl', unreachable, vscode.ConfigurationTarget.Workspace);
    try {
      const outcome = await vscode.commands.executeCommand<SendPromptOutcome>(
        'tritonStudio.sendPrompt',
        'hello',
      );
      assert.equal(outcome?.ok, false);
      const toast = await workbench<{ message: string; buttons: string[] }>({
        kind: 'waitForNotification',
        text: 'Cannot reach the Triton server',
      });
      assert.match(toast.message, new RegExp(`at ${unreachable} \\(connection refused\\)`));
      assert.match(toast.message, /change the setting tritonStudio\.serverUrl/);
      assert.deepEqual(toast.buttons, ['Open Setting']);
      await workbench({ kind: 'screenshot', name: 'unreachable-server' });

      await workbench({
        kind: 'clickNotificationButton',
        text: 'Cannot reach the Triton server',
        button: 'Open Setting',
      });
      await workbench({
        kind: 'waitForText',
        selector: SETTINGS_EDITOR,
        text: "Triton server's gRPC endpoint",
      });
      assert.equal(vscode.window.tabGroups.activeTabGroup.activeTab?.label, 'Settings');
    } finally {
      await config.update('serverUrl', testEnv('serverUrl'), vscode.ConfigurationTarget.Workspace);
    }
  });
});
