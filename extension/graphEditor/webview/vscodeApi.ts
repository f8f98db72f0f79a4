/** The page's one channel to the provider (VS Code allows acquireVsCodeApi once per page). */
import type { WebviewMessage } from '../messages.js';

declare function acquireVsCodeApi(): { postMessage(m: WebviewMessage): void };

const vscode = acquireVsCodeApi();

export const post = (m: WebviewMessage): void => vscode.postMessage(m);
