/**
 * The launcher's side of suite/workbench.ts: performs a test's request on the workbench page with
 * Playwright and writes the answer file the test waits for.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Frame, FrameLocator, Page } from 'playwright-core';
import { measureContrast } from './contrast.js';
import type { WorkbenchAction, WorkbenchAnswer, WorkbenchRequest } from './suite/workbench.js';

const STEP_TIMEOUT_MS = 15_000;

/** Collapses whitespace (the output view soft-wraps lines and may render spaces as U+00A0). */
function normalize(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Writes `content` under a temporary name, then renames: a reader never sees half a file. */
function writeAtomically(path: string, write: (partial: string) => Promise<void> | void): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  return Promise.resolve(write(partial)).then(() => renameSync(partial, path));
}

export async function screenshot(page: Page, path: string): Promise<void> {
  await writeAtomically(path, async (partial) => {
    await page.screenshot({ path: partial, type: 'png' });
  });
}

/**
 * Runs in the workbench page from its start: notes when each toast enters and leaves the DOM, so a
 * toast that did not come can be told from one that came and went (notificationState reads it).
 */
export function recordToasts(): void {
  const log: { at: number; op: 'added' | 'removed'; element: Element }[] = [];
  (window as unknown as { __tritonStudioToasts: typeof log }).__tritonStudioToasts = log;
  const note = (nodes: NodeList, op: 'added' | 'removed') =>
    nodes.forEach((n) => {
      if (n instanceof Element && n.classList.contains('notification-toast-container'))
        log.push({ at: Date.now(), op, element: n });
    });
  new MutationObserver((records) =>
    records.forEach((r) => {
      note(r.addedNodes, 'added');
      note(r.removedNodes, 'removed');
    }),
  ).observe(document, { childList: true, subtree: true });
}

/**
 * What the notification area held when an awaited toast did not come: the toasts on screen,
 * whether the notification center was open (the workbench shows no toasts then) and what it
 * lists if so, with a screenshot.
 */
async function notificationState(page: Page, dir: string): Promise<string> {
  const messages = (selector: string) =>
    page
      .locator(`${selector} .notification-list-item-message`)
      .allInnerTexts()
      .then((texts) => texts.map(normalize));
  const toasts = await messages('.notifications-toasts .notification-toast');
  const centerOpen = await page.locator('.notifications-center.visible').count();
  const history = await page.evaluate(() =>
    (
      (window as unknown as { __tritonStudioToasts?: { at: number; op: string; element: Element }[] })
        .__tritonStudioToasts ?? []
    )
      .slice(-8)
      .map(
        (e) =>
          `${new Date(e.at).toISOString().slice(11, 23)} ${e.op} ${(e.element.textContent ?? '').slice(0, 60)}`,
      ),
  );
  const path = join(dir, `notification-missing-${Date.now()}.png`);
  await screenshot(page, path);
  return [
    `toasts on screen: ${JSON.stringify(toasts)}`,
    `notification center ${centerOpen ? 'open' : 'closed'}`,
    `center: ${JSON.stringify(await messages('.notifications-center'))}`,
    `screenshot: ${path}`,
    `last toasts in and out of the DOM (now ${new Date().toISOString().slice(11, 23)}): ${JSON.stringify(history)}`,
  ].join('; ');
}

async function perform(page: Page, action: WorkbenchAction, dir: string): Promise<unknown> {
  switch (action.kind) {
    case 'screenshot': {
      // Output channels and notifications render a moment after the call that filled them.
      await page.waitForTimeout(1_500);
      const path = join(dir, `${action.name}.png`);
      await screenshot(page, path);
      return path;
    }
    case 'runFromPalette': {
      // Right after start the palette can answer "No matching commands": close it and retry.
      for (let attempt = 1; attempt <= 5; attempt++) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('F1');
        const input = page.locator('.quick-input-widget .quick-input-box input');
        await input.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
        await input.fill(`>${action.title}`);
        const row = page.locator('.quick-input-list .monaco-list-row', { hasText: action.title }).first();
        try {
          await row.waitFor({ state: 'visible', timeout: 3_000 });
        } catch {
          continue;
        }
        await page.keyboard.press('Enter');
        return undefined;
      }
      throw new Error(`"${action.title}" did not appear in the command palette`);
    }
    case 'answerInputBox': {
      const widget = page.locator('.quick-input-widget', {
        has: page.locator('.quick-input-title', { hasText: action.title }),
      });
      await widget.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
      await widget.locator('.quick-input-box input').fill(action.text);
      await page.keyboard.press('Enter');
      return undefined;
    }
    case 'waitForText': {
      const wanted = normalize(action.text);
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      let seen = '';
      while (Date.now() < deadline) {
        seen = normalize((await page.locator(action.selector).allInnerTexts()).join('\n'));
        if (seen.includes(wanted)) return seen;
        await page.waitForTimeout(200);
      }
      throw new Error(`"${action.selector}" never showed "${wanted}"; it shows: "${seen}"`);
    }
    case 'waitForNotification': {
      const toast = page
        .locator('.notifications-toasts .notification-toast', { hasText: action.text })
        .first();
      await toast.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS }).catch(async (error: unknown) => {
        throw new Error(`${(error as Error).message}\n${await notificationState(page, dir)}`);
      });
      return {
        message: normalize(await toast.locator('.notification-list-item-message').innerText()),
        buttons: await toast
          .locator('.notification-list-item-buttons-container .monaco-button')
          .allInnerTexts(),
      };
    }
    case 'notifications':
      return (
        await page
          .locator('.notifications-toasts .notification-toast .notification-list-item-message')
          .allInnerTexts()
      ).map(normalize);
    case 'click':
      await page.locator(action.selector).first().click({ timeout: STEP_TIMEOUT_MS });
      return undefined;
    case 'webviewWaitFor':
    case 'webviewGone':
    case 'webviewClick':
    case 'webviewDrag':
    case 'webviewPress':
    case 'webviewFill':
    case 'webviewScroll':
    case 'webviewScreenshot':
    case 'webviewContrast':
      return performInWebview(page, action, dir);
    case 'clickNotificationButton': {
      const toast = page
        .locator('.notifications-toasts .notification-toast', { hasText: action.text })
        .first();
      await toast.locator('.monaco-button', { hasText: action.button }).click({ timeout: STEP_TIMEOUT_MS });
      return undefined;
    }
    case 'pressKey':
      await page.keyboard.press(action.key);
      return undefined;
    case 'pickQuickItem': {
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: action.label }).first();
      await row.click({ timeout: STEP_TIMEOUT_MS });
      return undefined;
    }
    case 'clickCodeLens': {
      const lens = page.locator('.codelens-decoration a', { hasText: action.text }).nth(action.index ?? 0);
      await lens.click({ timeout: STEP_TIMEOUT_MS });
      return undefined;
    }
    case 'waitForWebviewText':
      return (await webviewFrame(page, action.text, action.timeoutMs ?? STEP_TIMEOUT_MS)).seen;
    case 'clickInWebview': {
      const { frame } = await webviewFrame(page, action.within, STEP_TIMEOUT_MS);
      await frame.locator('button', { hasText: action.button }).first().click({ timeout: STEP_TIMEOUT_MS });
      return undefined;
    }
  }
}

/** The webview page (an iframe inside VS Code's webview host frame) whose text contains `text`. */
async function webviewFrame(
  page: Page,
  text: string,
  timeoutMs: number,
): Promise<{ frame: Frame; seen: string }> {
  const wanted = normalize(text);
  const deadline = Date.now() + timeoutMs;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = [];
    for (const frame of page.frames()) {
      if (frame === page.mainFrame()) continue;
      const body = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
      const shown = normalize(body);
      if (shown.includes(wanted)) return { frame, seen: shown };
      if (shown) seen.push(shown.slice(0, 200));
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview showed "${wanted}"; webviews show: ${JSON.stringify(seen)}`);
}

/** The webview inside the visible webview element (custom editors and panels alike). */
function visibleWebview(page: Page): FrameLocator {
  return page
    .locator('iframe.webview.ready')
    .filter({ visible: true })
    .first()
    .contentFrame()
    .frameLocator('iframe#active-frame');
}

async function performInWebview(page: Page, action: WorkbenchAction, dir: string): Promise<unknown> {
  const frame = visibleWebview(page);
  switch (action.kind) {
    case 'webviewWaitFor': {
      const element = frame.locator(action.selector, action.text ? { hasText: action.text } : {}).first();
      await element.waitFor({ state: 'attached', timeout: STEP_TIMEOUT_MS });
      return {
        text: normalize(await element.innerText()),
        title: await element.getAttribute('title'),
      };
    }
    case 'webviewGone':
      await frame.locator(action.selector).first().waitFor({ state: 'detached', timeout: STEP_TIMEOUT_MS });
      return undefined;
    case 'webviewClick':
      await frame
        .locator(action.selector)
        .first()
        .click({ timeout: STEP_TIMEOUT_MS, ...(action.position ? { position: action.position } : {}) });
      return undefined;
    case 'webviewDrag': {
      const box = async (selector: string) => {
        const b = await frame.locator(selector).first().boundingBox({ timeout: STEP_TIMEOUT_MS });
        if (!b) throw new Error(`"${selector}" is not visible in the webview`);
        return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
      };
      // Coordinates are the page's: the iframes' boxes are already included.
      const from = await box(action.from);
      const to = await box(action.to);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 5 });
      await page.mouse.move(to.x, to.y, { steps: 5 });
      await page.mouse.up();
      return undefined;
    }
    case 'webviewFill': {
      const input = frame.locator(action.selector).first();
      await input.fill(action.text, { timeout: STEP_TIMEOUT_MS });
      await input.press('Enter');
      return undefined;
    }
    case 'webviewPress':
      if (action.selector) await frame.locator(action.selector).first().focus({ timeout: STEP_TIMEOUT_MS });
      await page.keyboard.press(action.key);
      return undefined;
    case 'webviewScroll':
      // How far the page scrolled: 0 means the element was already at the top (or nothing scrolls).
      return frame
        .locator(action.selector)
        .first()
        .evaluate(
          (element) => {
            element.scrollIntoView({ block: 'start', behavior: 'instant' });
            return Math.round(document.scrollingElement?.scrollTop ?? 0);
          },
          undefined,
          { timeout: STEP_TIMEOUT_MS },
        );
    case 'webviewContrast':
      return frame
        .locator(action.selector)
        .first()
        .evaluate(measureContrast, action.minimum, { timeout: STEP_TIMEOUT_MS });
    case 'webviewScreenshot': {
      const path = join(dir, `${action.name}.png`);
      const element = page.locator('iframe.webview.ready').filter({ visible: true }).first();
      await writeAtomically(path, async (partial) => {
        await element.screenshot({ path: partial, type: 'png' });
      });
      return path;
    }
    default:
      throw new Error(`not a webview action: ${action.kind}`);
  }
}

/** Performs one request and writes its answer; failures become answers too, so the test reports them. */
export async function answerRequest(page: Page, request: WorkbenchRequest, dir: string): Promise<void> {
  let answer: WorkbenchAnswer;
  try {
    answer = { ok: true, value: await perform(page, request.action, dir) };
  } catch (error) {
    answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  await writeAtomically(request.answerFile, (partial) => writeFileSync(partial, JSON.stringify(answer)));
}
