/**
 * Driving the workbench UI from inside the extension host. Only the launcher (the browser side,
 * Playwright) can press keys, read what the window shows or take screenshots, so a test asks it:
 * it logs a request line (the workbench forwards the extension host's console to the launcher)
 * and waits for the launcher's answer file. The extension host must stay alive meanwhile: once
 * the suite ends, its output channels and notifications are gone from the window.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Folder for screenshots and request answers; set by runTests.ts on the code-server process. */
export const WORKBENCH_DIR_ENV = 'TRITON_STUDIO_WORKBENCH_DIR';
/** Prefix of the log line carrying a request (JSON follows). */
export const WORKBENCH_REQUEST = '[triton-studio:workbench]';

export type WorkbenchAction =
  /** `<dir>/<name>.png` of the whole window. */
  | { kind: 'screenshot'; name: string }
  /** F1, type the command's title, run it. */
  | { kind: 'runFromPalette'; title: string }
  /** Types `text` into the open input box titled `title` and presses Enter. */
  | { kind: 'answerInputBox'; title: string; text: string }
  /** Waits until the element's visible text contains `text` (whitespace-insensitive); returns that text. */
  | { kind: 'waitForText'; selector: string; text: string }
  /** Waits for a notification toast containing `text`; returns its message and button labels. */
  | { kind: 'waitForNotification'; text: string }
  /** The messages of every notification toast on screen now (none: an empty list). */
  | { kind: 'notifications' }
  | { kind: 'clickNotificationButton'; text: string; button: string }
  /** Clicks the open quick pick's item whose label contains `label`. */
  | { kind: 'pickQuickItem'; label: string }
  /** Presses a key (Playwright's name: `Control+End`, `Escape`…) in the focused workbench element. */
  | { kind: 'pressKey'; key: string }
  /** Clicks the CodeLens (in the active editor) whose title contains `text`; `index` picks among equals. */
  | { kind: 'clickCodeLens'; text: string; index?: number }
  /** Waits until some webview's page text contains `text` (whitespace-insensitive); returns that page's text. */
  | { kind: 'waitForWebviewText'; text: string; timeoutMs?: number }
  /** Clicks the button whose text contains `text` inside the webview showing `within`. */
  | { kind: 'clickInWebview'; within: string; button: string }
  /** Clicks the workbench element (e.g. an editor title-bar button). */
  | { kind: 'click'; selector: string }
  /** In the visible webview (a custom editor or panel): */
  /** waits for the element (and, if given, text in it); returns its text and `title`. */
  | { kind: 'webviewWaitFor'; selector: string; text?: string }
  /** waits until no element matches. */
  | { kind: 'webviewGone'; selector: string }
  | { kind: 'webviewClick'; selector: string; position?: { x: number; y: number } }
  /** drags with the mouse from one element's centre to another's. */
  | { kind: 'webviewDrag'; from: string; to: string }
  /** replaces the text of the input (as typing would) and presses Enter. */
  | { kind: 'webviewFill'; selector: string; text: string }
  /** focuses the element (or keeps the focus) and presses `key` (Playwright key names). */
  | { kind: 'webviewPress'; key: string; selector?: string }
  /** scrolls the visible webview until the element is at its top; answers the page's scrollTop. */
  | { kind: 'webviewScroll'; selector: string }
  /** `<dir>/<name>.png` of the webview alone. */
  | { kind: 'webviewScreenshot'; name: string }
  /** WCAG contrast of every text under the selector: { checked, failures } (test/vscode/contrast.ts). */
  | { kind: 'webviewContrast'; selector: string; minimum: number };

export interface WorkbenchRequest {
  id: string;
  action: WorkbenchAction;
  /** Where the launcher writes the WorkbenchAnswer. */
  answerFile: string;
}

export type WorkbenchAnswer = { ok: true; value?: unknown } | { ok: false; error: string };

/** Selectors of the parts tests read. */
export const OUTPUT_PANEL_TEXT = '.part.panel .output-view .view-lines';
export const SETTINGS_EDITOR = '.settings-editor .settings-body';

let requests = 0;
const SESSION = Math.random().toString(36).slice(2, 8);

export function workbenchDir(): string {
  const dir = process.env[WORKBENCH_DIR_ENV];
  if (!dir) throw new Error(`${WORKBENCH_DIR_ENV} is not set: run the suite through \`npm run test:vscode\``);
  return dir;
}

/** Asks the launcher to act on the workbench and returns its answer's value. */
export async function workbench<T = unknown>(action: WorkbenchAction, timeoutMs = 60_000): Promise<T> {
  const answers = join(workbenchDir(), 'requests');
  mkdirSync(answers, { recursive: true });
  // Each suite file is bundled with its own counter: the random part keeps their ids apart.
  const id = `${process.pid}-${SESSION}-${++requests}`;
  const request: WorkbenchRequest = { id, action, answerFile: join(answers, `${id}.json`) };
  console.log(`${WORKBENCH_REQUEST} ${JSON.stringify(request)}`);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(request.answerFile)) {
    if (Date.now() > deadline) {
      throw new Error(`the launcher did not answer ${JSON.stringify(action)} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const answer = JSON.parse(readFileSync(request.answerFile, 'utf8')) as WorkbenchAnswer;
  if (!answer.ok) throw new Error(`workbench ${action.kind} failed: ${answer.error}`);
  return answer.value as T;
}
