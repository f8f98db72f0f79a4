/**
 * The workbench UI as a user sees it: palette, input box, output panel, progress cancellation and
 * error notifications.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import { unreachableServerUrl, withWorkspaceSetting } from './settings.js';
import { expectedAnswer } from './simLlm.js';
import { testEnv } from './testEnv.js';
import { OUTPUT_PANEL_TEXT, SETTINGS_EDITOR, workbench } from './workbench.js';

const TITLE = 'Triton Studio: Send Prompt';

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

  it('stops a long answer when the progress notification is cancelled, without an error', async () => {
    // sim-llm spends 2 ms per generated token here: 4,000 tokens (sim-llm's limit is 4,096) take about 8 s.
    const outcome = await withWorkspaceSetting('maxTokens', 4_000, async () => {
      const pending = vscode.commands.executeCommand<SendPromptOutcome>(
        'tritonStudio.sendPrompt',
        'a long one',
      );
      await workbench({ kind: 'clickNotificationButton', text: 'is answering', button: 'Cancel' });
      return pending;
    });
    assert.deepEqual(outcome, { ok: false, error: 'Prompt cancelled.', setting: undefined, cancelled: true });
  });

  it('shows an unreachable server as an error notification whose button opens the setting to change', async () => {
    const unreachable = await unreachableServerUrl();
    await withWorkspaceSetting('serverUrl', unreachable, async () => {
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
    });
  });
});
