/**
 * Screenshots of the workbench, asked for from inside the extension host. Only the launcher (the
 * browser side) can take them, and only while the extension host is alive (once the suite ends,
 * its output channels are gone from the window), so a test asks mid-run: it logs a request line,
 * which the workbench forwards to the launcher, and waits until the PNG exists.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Folder for the PNGs; set by runTests.ts on the code-server process. */
export const SCREENSHOT_DIR_ENV = 'TRITON_STUDIO_SCREENSHOT_DIR';
/** Prefix of the log line that asks the launcher for a screenshot; the PNG's path follows it. */
export const SCREENSHOT_REQUEST = '[triton-studio:screenshot]';

/** Takes a screenshot named `<name>.png` and returns its path; undefined when no folder is configured. */
export async function screenshot(name: string, timeoutMs = 30_000): Promise<string | undefined> {
  const dir = process.env[SCREENSHOT_DIR_ENV];
  if (!dir) return undefined;
  const path = join(dir, `${name}.png`);
  rmSync(path, { force: true });
  console.log(`${SCREENSHOT_REQUEST} ${path}`);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline)
      throw new Error(`the launcher did not write the screenshot ${path} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return path;
}
