/** What every command shares for talking to the user: progress with cancel, errors with actions. */
import * as vscode from 'vscode';
import type { Ctx } from '../context.js';
import { SettingError } from '../settings.js';
import { toastText } from './toastText.js';

/** A button on an error notification. */
export interface ErrorAction {
  title: string;
  run: () => unknown;
}

/** The error, logged to the output channel and shown with its buttons; resolves once handled. */
export async function showError(ctx: Ctx, message: string, ...actions: ErrorAction[]): Promise<void> {
  ctx.log(`error: ${message}`);
  const choice = await vscode.window.showErrorMessage(toastText(message), ...actions.map((a) => a.title));
  await actions.find((a) => a.title === choice)?.run();
}

export const openOutput = (ctx: Ctx): ErrorAction => ({
  title: 'Open Log',
  run: () => ctx.output.show(true),
});

export const openSetting = (key: string): ErrorAction => ({
  title: 'Open Setting',
  run: () => vscode.commands.executeCommand('workbench.action.openSettings', key),
});

export const startLocalServerAction: ErrorAction = {
  title: 'Start Local Server',
  run: () => vscode.commands.executeCommand('tritonStudio.startLocalServer'),
};

export const showProblem = (uri: vscode.Uri, range?: vscode.Range): ErrorAction => ({
  title: 'Show Problem',
  run: async () => {
    await vscode.window.showTextDocument(uri, { selection: range, preview: false });
    await vscode.commands.executeCommand('workbench.actions.view.problems');
  },
});

/** The actions that fix a thrown error: a setting to change, or the log to read. */
export function actionsFor(ctx: Ctx, error: unknown): ErrorAction[] {
  if (error instanceof SettingError) return [openSetting(error.setting)];
  return [openOutput(ctx)];
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Long work in a cancellable progress notification. The signal aborts when the user presses
 * Cancel; `report` sets the line under the title (and, with `increment`, moves the bar by that many percent).
 */
export function withProgress<T>(
  title: string,
  work: (report: (message: string, increment?: number) => void, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return work((message, increment) => progress.report({ message, increment }), abort.signal);
      },
    ),
  );
}

/** What commands resolve to, so tests, keybindings and other extensions can use the result. */
export type Outcome<T extends object = object> =
  ({ ok: true } & T) | { ok: false; error: string; cancelled?: boolean; setting?: string };
