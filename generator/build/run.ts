/**
 * Running the build tools (cmake, the compiler through it) with their output captured, so a
 * failure can be reported with the part of the log that explains it.
 */
import { spawn } from 'node:child_process';

/** A build failed; the message says what failed, what to do, and ends with the output's tail. */
export class BuildError extends Error {
  constructor(
    message: string,
    /** The last lines of the tool's output (compiler errors usually end up here). */
    readonly outputTail: string = '',
  ) {
    super(outputTail ? `${message}\n--- last lines of the output ---\n${outputTail}` : message);
    this.name = 'BuildError';
  }
}

export interface RunResult {
  code: number;
  output: string;
}

export interface RunOptions {
  cwd?: string;
  /** Every output line as it arrives (progress display); the output is collected either way. */
  onOutput?: (line: string) => void;
  /** Aborting kills the tool (SIGTERM) and rejects with a BuildError saying it was cancelled. */
  signal?: AbortSignal;
}

/** Runs `command args…`; resolves with its exit code and combined stdout+stderr. */
export function runTool(command: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new BuildError(`cancelled before ${command} started`));
      return;
    }
    let output = '';
    let pending = '';
    // A cancellable tool gets a process group of its own, so cancelling stops make and the
    // compilers under cmake too, not only cmake.
    const detached = opts.signal !== undefined;
    const child = spawn(command, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached });
    const onAbort = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      if (opts.onOutput) {
        pending += text;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) opts.onOutput(line);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        reject(
          new BuildError(
            `${command} was not found on PATH. Install it (Debian/Ubuntu: apt-get install -y cmake g++ make, ` +
              'or run `npm run setup`, which installs everything the native build needs).',
          ),
        );
      } else reject(new BuildError(`could not start ${command}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      opts.signal?.removeEventListener('abort', onAbort);
      if (pending && opts.onOutput) opts.onOutput(pending);
      if (opts.signal?.aborted) reject(new BuildError(`cancelled: ${command} was stopped`));
      else resolve({ code: code ?? (signal ? 128 : 1), output });
    });
  });
}

/** The last `lines` non-empty lines of a tool's output. */
export function tail(output: string, lines = 40): string {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-lines)
    .join('\n');
}

/** Runs a tool and throws a BuildError carrying `what to do` and the output tail when it fails. */
export async function runOrThrow(command: string, args: string[], failure: string, opts: RunOptions = {}): Promise<string> {
  const result = await runTool(command, args, opts);
  if (result.code !== 0) {
    throw new BuildError(`${failure} (\`${command} ${args.join(' ')}\` exited with ${result.code})`, tail(result.output));
  }
  return result.output;
}
