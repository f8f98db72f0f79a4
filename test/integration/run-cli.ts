/**
 * Runs the built CLI (bin/triton-studio.js) as a user would, in a child process from the
 * repository root, collecting its exit code and output: the one way the integration tests call
 * `triton-studio`.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/triton-studio.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; left open when not given. */
  stdin?: string;
  /** Kills the command and fails the run after this long; no limit when not given. */
  timeoutMs?: number;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: options.env ?? process.env });
    child.on('error', reject);
    // A command that exits before reading its input closes the pipe: its exit code and output say
    // why, and the EPIPE must not surface as an error outside the test.
    child.stdin.on('error', () => undefined);
    if (options.stdin !== undefined) child.stdin.end(options.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`triton-studio ${args.join(' ')} timed out\n${stderr}`));
          }, options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}
