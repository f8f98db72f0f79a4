import * as vscode from 'vscode';
import { sendPrompt, type PromptResult } from '../../client/prompt.js';
import type { ServerConnections } from '../connection.js';
import { readPromptSettings, type PromptSettings } from '../settings.js';
import type { PromptOutput, PromptRecord } from '../views/promptOutput.js';
import { describePromptFailure } from './promptFailure.js';

export const SEND_PROMPT_COMMAND = 'tritonStudio.sendPrompt';

/**
 * What the command resolves to, so callers (tests, other extensions, keybindings with args) can
 * use the answer. `undefined` when the user dismissed the prompt input.
 */
export type SendPromptOutcome =
  | ({ ok: true } & PromptRecord & Pick<PromptResult, 'text' | 'latencyMs' | 'ttftMs' | 'responses'>)
  | { ok: false; error: string; setting?: string; cancelled: boolean };

/**
 * "Triton Studio: Send Prompt": sends the given text, else the editor selection, else what the
 * user types, to the configured model, and shows the answer in the output channel.
 */
export function registerSendPrompt(connections: ServerConnections, output: PromptOutput): vscode.Disposable {
  return vscode.commands.registerCommand(SEND_PROMPT_COMMAND, (text?: unknown) =>
    sendPromptCommand(connections, output, typeof text === 'string' ? text : undefined),
  );
}

async function sendPromptCommand(
  connections: ServerConnections,
  output: PromptOutput,
  givenText: string | undefined,
): Promise<SendPromptOutcome | undefined> {
  const editor = vscode.window.activeTextEditor;
  const prompt = givenText ?? selectedText(editor) ?? (await askForPrompt());
  if (prompt === undefined) return undefined;

  let settings: PromptSettings | undefined;
  let record: PromptRecord | undefined;
  // Cancelling the progress notification aborts the request; the client then throws.
  const abort = new AbortController();
  try {
    settings = readPromptSettings(editor?.document.uri);
    record = { ...settings, prompt };
    const { serverUrl, model, maxTokens } = settings;
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Triton Studio: ${model} is answering…`,
        cancellable: true,
      },
      (_progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return sendPrompt(connections.client(serverUrl), {
          model,
          text: prompt,
          maxTokens,
          signal: abort.signal,
        });
      },
    );
    output.showAnswer(record, result);
    const { text, latencyMs, ttftMs, responses } = result;
    return { ok: true, ...record, text, latencyMs, ttftMs, responses };
  } catch (error) {
    const failure = describePromptFailure(error, settings, abort.signal.aborted);
    if (failure.unreachable && settings) connections.forget(settings.serverUrl);
    output.showError(failure.message, record);
    if (!failure.cancelled) void notify(failure.message, failure.setting);
    return { ok: false, error: failure.message, setting: failure.setting, cancelled: failure.cancelled };
  }
}

/** The selections' text (several selections joined by newlines); undefined when nothing is selected. */
function selectedText(editor: vscode.TextEditor | undefined): string | undefined {
  if (!editor) return undefined;
  const parts = editor.selections.filter((s) => !s.isEmpty).map((s) => editor.document.getText(s));
  return parts.length > 0 ? parts.join('\n') : undefined;
}

async function askForPrompt(): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Triton Studio: Send Prompt',
    prompt: 'Text to send to the configured model (select text in an editor to send that instead)',
    ignoreFocusOut: true,
    validateInput: (value) =>
      value.trim() === '' ? 'Type a prompt: the model needs at least one token.' : undefined,
  });
}

/** An error notification; when a setting fixes it, a button opens that setting. */
async function notify(message: string, setting: string | undefined): Promise<void> {
  const OPEN = 'Open Setting';
  const choice = setting
    ? await vscode.window.showErrorMessage(message, OPEN)
    : await vscode.window.showErrorMessage(message);
  if (choice === OPEN && setting)
    await vscode.commands.executeCommand('workbench.action.openSettings', setting);
}
