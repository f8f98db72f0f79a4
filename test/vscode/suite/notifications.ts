/**
 * A quiet notification area before a command whose toast a test reads. VS Code shows at most three
 * new toasts in any 800 ms (NotificationsToasts.SPAM_PROTECTION in the workbench); a fourth goes to
 * the notification center only. A test that clears the toasts of one command and at once runs the
 * next (a progress notification and an error each count) could so lose the toast it waits for:
 * one cause of the "first error toast sometimes missing" the suite used to retry for. The other
 * was the product's: a toast taller than ~62% of the window is not shown either, and error
 * messages naming several paths were that tall (extension/commands/toastText.ts now cuts them).
 */
import * as vscode from 'vscode';

/** The workbench's toast spam window (ms). */
export const TOAST_SPAM_WINDOW_MS = 800;

/** Clears every notification, then lets the spam window pass. */
export async function quietNotifications(): Promise<void> {
  await vscode.commands.executeCommand('notifications.clearAll');
  await new Promise((r) => setTimeout(r, TOAST_SPAM_WINDOW_MS + 200));
}
