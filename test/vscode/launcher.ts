/**
 * Stands in for VS Code's executable when `@vscode/test-electron`'s `runTests` starts it: no
 * desktop VS Code can be downloaded here, so this starts the real VS Code server (code-server
 * 4.100.3 from npm) and drives its workbench in headless Chromium (playwright-core). The payload
 * in the workbench URL tells VS Code to load the extension under development and run its test
 * suite in the (Node) extension host; the workbench reports the result through
 * `codeAutomationExit`, the hook VS Code's own web test runner uses, and this process exits with it.
 *
 * Arguments (as runTests passes them): `--extensionDevelopmentPath=`, `--extensionTestsPath=`,
 * `--user-data-dir=`, `--extensions-dir=`, a folder to open; other VS Code flags are ignored.
 * Environment: everything is passed on to code-server, whose extension host the suite runs in.
 *   TRITON_STUDIO_WORKBENCH_DIR  where the suite's UI requests are answered (suite/workbench.ts) and
 *                                screenshots go, `at-exit.png` among them when the run fails
 *   TRITON_STUDIO_VSCODE_TIMEOUT_MS  whole-run limit (default 10 min)
 *   TRITON_STUDIO_VSCODE_VERBOSE=1   forward the browser console
 *   TRITON_STUDIO_VSCODE_WORKSPACE_TRUST=1  keep Workspace Trust on: the folder opens in Restricted
 *                                Mode (no start-up prompt) until a test trusts it
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { format } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { WORKBENCH_DIR_ENV, WORKBENCH_REQUEST, type WorkbenchRequest } from './suite/workbench.js';
import { answerRequest, recordToasts, screenshot } from './workbenchDriver.js';
import { WORKSPACE_TRUST_ENV } from './suite/testEnv.js';

const ROOT = resolve(__dirname, '..', '..');
export const CODE_SERVER_ENTRY = join(ROOT, '.tools/code-server/node_modules/code-server/out/node/entry.js');
export const CHROMIUM = '/usr/bin/chromium';
const INSTALL_HINT = 'run `bash scripts/install-vscode-test.sh` (installs Chromium and code-server 4.100.3)';

interface LaunchArgs {
  extensionDevelopmentPath: string;
  extensionTestsPath: string;
  userDataDir?: string;
  extensionsDir?: string;
  folder?: string;
}

function parseArgs(argv: string[]): LaunchArgs {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (const arg of argv) {
    const match = /^--([^=]+)=(.*)$/.exec(arg);
    if (match) flags.set(match[1]!, match[2]!);
    else if (!arg.startsWith('--')) positional.push(arg);
  }
  const extensionDevelopmentPath = flags.get('extensionDevelopmentPath');
  const extensionTestsPath = flags.get('extensionTestsPath');
  if (!extensionDevelopmentPath || !extensionTestsPath) {
    throw new Error('launcher: --extensionDevelopmentPath=DIR and --extensionTestsPath=PATH are required');
  }
  if (positional.length > 1) throw new Error(`launcher: opens one folder, got ${positional.join(', ')}`);
  return {
    extensionDevelopmentPath: resolve(extensionDevelopmentPath),
    extensionTestsPath: resolve(extensionTestsPath),
    userDataDir: flags.get('user-data-dir'),
    extensionsDir: flags.get('extensions-dir'),
    folder: positional[0] ? resolve(positional[0]) : undefined,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface CodeServer {
  url: string;
  port: number;
  process: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

async function startCodeServer(args: LaunchArgs, scratch: string): Promise<CodeServer> {
  const port = await freePort();
  const config = join(scratch, 'code-server.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const userDataDir = resolve(args.userDataDir ?? join(scratch, 'user-data'));
  const extensionsDir = resolve(args.extensionsDir ?? join(scratch, 'extensions'));
  mkdirSync(userDataDir, { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const workspaceTrust = process.env[WORKSPACE_TRUST_ENV] === '1';
  if (workspaceTrust) {
    // Restricted Mode without the modal start-up question (it would cover the workbench).
    mkdirSync(join(userDataDir, 'User'), { recursive: true });
    writeFileSync(
      join(userDataDir, 'User', 'settings.json'),
      `${JSON.stringify({ 'security.workspace.trust.startupPrompt': 'never' }, null, 2)}\n`,
    );
  }
  const logFile = join(scratch, 'code-server.log');
  const log = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      CODE_SERVER_ENTRY,
      '--config',
      config,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
    ],
    {
      // The suite's environment reaches the extension host only through code-server's own.
      env: {
        ...process.env,
        XDG_CONFIG_HOME: join(scratch, 'xdg-config'),
        XDG_DATA_HOME: join(scratch, 'xdg-data'),
      },
      stdio: ['ignore', log, log],
      // Its own process group: stop() ends code-server and the extension hosts it started.
      detached: true,
    },
  );
  closeSync(log);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    killGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  process.once('exit', () => {
    if (child.pid !== undefined && child.exitCode === null) killGroup(child.pid, 'SIGKILL');
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) {
        return { url, port, process: child, logFile, stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`code-server did not start (log ${logFile}):\n${tail(logFile)}`);
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** The workbench URL that opens `folder` and runs the suite (VS Code's web test payload). */
function workbenchUrl(server: CodeServer, args: LaunchArgs): string {
  const remote = (path: string) => `vscode-remote://127.0.0.1:${server.port}${path}`;
  const payload = [
    ['extensionDevelopmentPath', remote(args.extensionDevelopmentPath)],
    ['extensionTestsPath', remote(args.extensionTestsPath)],
  ];
  const query = new URLSearchParams();
  if (args.folder) query.set('folder', args.folder);
  query.set('payload', JSON.stringify(payload));
  return `${server.url}/?${query.toString()}`;
}

async function runSuite(server: CodeServer, args: LaunchArgs): Promise<number> {
  const timeoutMs = Number(process.env.TRITON_STUDIO_VSCODE_TIMEOUT_MS ?? 600_000);
  const workbenchDir = process.env[WORKBENCH_DIR_ENV];
  const verbose = process.env.TRITON_STUDIO_VSCODE_VERBOSE === '1';
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    let reportExit: (code: number) => void = () => {};
    const exitCode = new Promise<number>((r) => (reportExit = r));
    // The workbench forwards the extension host's console as (level, [format, ...args]).
    await page.exposeFunction('codeAutomationLog', (level: unknown, args: unknown) => {
      const text = Array.isArray(args) ? format(...(args as unknown[])) : format(args);
      if (text.startsWith(WORKBENCH_REQUEST) && workbenchDir) {
        const request = JSON.parse(text.slice(WORKBENCH_REQUEST.length)) as WorkbenchRequest;
        // Not awaited: the workbench waits for this callback before it forwards the next log line.
        void answerRequest(page, request, workbenchDir);
        return;
      }
      (level === 'error' ? console.error : console.log)(
        level === 'info' ? text : `[${String(level)}] ${text}`,
      );
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => reportExit(Number(code)));
    page.on('pageerror', (error) => console.error(`[workbench] page error: ${error.message}`));
    if (verbose) page.on('console', (m) => console.log(`[workbench:${m.type()}] ${m.text()}`));

    await page.addInitScript(recordToasts);
    await page.goto(workbenchUrl(server, args));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const outcome = await Promise.race([exitCode, timedOut]);
    clearTimeout(timer);
    if (outcome !== 0 && workbenchDir) await screenshot(page, join(workbenchDir, 'at-exit.png'));
    if (outcome === 'timeout') {
      console.error(
        `launcher: the suite did not finish within ${timeoutMs / 1000} s (code-server log ${server.logFile})`,
      );
      return 1;
    }
    return outcome;
  } finally {
    await browser?.close();
  }
}

async function main(): Promise<number> {
  for (const [what, path] of [
    ['code-server', CODE_SERVER_ENTRY],
    ['Chromium', CHROMIUM],
  ] as const) {
    if (!existsSync(path)) throw new Error(`launcher: ${what} not found at ${path}: ${INSTALL_HINT}`);
  }
  const args = parseArgs(process.argv.slice(2));
  const scratch = mkdtempSync(join(tmpdir(), 'triton-studio-vscode-'));
  const server = await startCodeServer(args, scratch);
  let code = 1;
  try {
    code = await runSuite(server, args);
  } finally {
    await server.stop();
    if (code === 0) rmSync(scratch, { recursive: true, force: true });
    else console.error(`launcher: code-server log kept at ${server.logFile}`);
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
