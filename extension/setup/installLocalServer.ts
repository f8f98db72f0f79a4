/**
 * Install Local Server: the real Triton server (nvidia-pytriton from PyPI, ~150 MB) into the
 * extension's global storage, on request, with cancellable progress. The install itself is the
 * project's own script (scripts/install-tritonserver.sh, which `npm run setup` runs too).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import * as vscode from 'vscode';
import type { Ctx } from '../context.js';
import { errorMessage, notify, openOutput, showError, withProgress, type Outcome } from '../commands/ui.js';
import { installedTritonserver } from './tritonserverBinary.js';

export const INSTALL_LOCAL_SERVER_COMMAND = 'tritonStudio.installLocalServer';

export async function installLocalServer(ctx: Ctx): Promise<Outcome<{ tritonserver: string }>> {
  const venv = ctx.storage.serverVenv;
  const present = installedTritonserver(venv);
  if (present) {
    void notify('info', `The local Triton server is installed: ${present}`);
    return { ok: true, tritonserver: present };
  }
  mkdirSync(dirname(venv), { recursive: true });
  const script = join(ctx.extension.extensionPath, 'scripts', 'install-tritonserver.sh');
  ctx.log(`installing the local Triton server into ${venv} (${script})…`);
  try {
    await withProgress(
      'Triton Studio: installing the local Triton server (~150 MB, once)',
      (report, signal) =>
        runScript(script, venv, signal, (line) => {
          ctx.log(line);
          report(line.replace(/^\[install-tritonserver\] /, '').slice(0, 100));
        }),
    );
    const tritonserver = installedTritonserver(venv);
    if (!tritonserver) throw new Error(`the install finished but no tritonserver is under ${venv}`);
    ctx.localServer.changedInstall();
    void notify('info', 'The local Triton server is installed: Start Local Server can run it.');
    return { ok: true, tritonserver };
  } catch (error) {
    const cancelled = /cancelled/i.test(errorMessage(error));
    const message = cancelled
      ? 'Install Local Server cancelled.'
      : `Install Local Server failed: ${errorMessage(error)}`;
    if (!cancelled)
      void showError(
        ctx,
        message,
        { title: 'Retry', run: () => vscode.commands.executeCommand(INSTALL_LOCAL_SERVER_COMMAND) },
        openOutput(ctx),
      );
    return { ok: false, error: message, cancelled };
  }
}

function runScript(
  script: string,
  venv: string,
  signal: AbortSignal,
  onLine: (line: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, venv], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const lastErrors: string[] = [];
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', (line) => {
      onLine(line);
      lastErrors.push(line);
      if (lastErrors.length > 3) lastErrors.shift();
    });
    // pip runs in the script's process group: cancelling stops all of it.
    const abort = () => {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    };
    signal.addEventListener('abort', abort, { once: true });
    child.on('error', (e) => reject(e));
    child.on('close', (code) => {
      signal.removeEventListener('abort', abort);
      if (signal.aborted) reject(new Error('cancelled'));
      else if (code === 0) resolve();
      else
        reject(
          new Error(
            lastErrors.at(-1)?.replace(/^\[install-tritonserver\] error: /, '') ??
              `the install script exited with ${code}`,
          ),
        );
    });
  });
}
