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

const SHOW = {
  error: (message: string, ...buttons: string[]) => vscode.window.showErrorMessage(message, ...buttons),
  warning: (message: string, ...buttons: string[]) => vscode.window.showWarningMessage(message, ...buttons),
  info: (message: string, ...buttons: string[]) => vscode.window.showInformationMessage(message, ...buttons),
};

/**
 * The one way a notification reaches the user: cut to what VS Code will show (toastText), with its
 * buttons; resolves once a button's action ran (or the toast closed). A codebase rule keeps every
 * other file from calling vscode.window.show*Message itself.
 */
export async function notify(
  level: keyof typeof SHOW,
  message: string,
  ...actions: ErrorAction[]
): Promise<void> {
  const choice = await SHOW[level](toastText(message), ...actions.map((a) => a.title));
  await actions.find((a) => a.title === choice)?.run();
}

/** The error, logged to the output channel and shown with its buttons; resolves once handled. */
export async function showError(ctx: Ctx, message: string, ...actions: ErrorAction[]): Promise<void> {
  ctx.log(`error: ${message}`);
  await notify('error', message, ...actions);
}

/** A button that runs a command. */
export const commandAction = (title: string, command: string): ErrorAction => ({
  title,
  run: () => vscode.commands.executeCommand(command),
});

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

/**
 * A download that failed or was cancelled: logged; a failure (not a cancel) shown with Retry (the
 * same command on the same name) and Open Log. `what` is the command's title ("Download Model").
 */
export function downloadFailed(
  ctx: Ctx,
  what: string,
  command: string,
  name: string,
  error: unknown,
): { ok: false; error: string; cancelled: boolean } {
  const cancelled = errorMessage(error) === 'cancelled';
  const message = cancelled ? `${what} cancelled.` : `${what} "${name}" failed: ${errorMessage(error)}`;
  ctx.log(message);
  if (!cancelled)
    void showError(
      ctx,
      message,
      { title: 'Retry', run: () => vscode.commands.executeCommand(command, name) },
      openOutput(ctx),
    );
  return { ok: false, error: message, cancelled };
}

/** What commands resolve to, so tests, keybindings and other extensions can use the result. */
export type Outcome<T extends object = object> =
  ({ ok: true } & T) | { ok: false; error: string; cancelled?: boolean; setting?: string };
