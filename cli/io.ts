/** The CLI's output (text or --json) and its one-line errors with exit codes. */
import { formatDiagnostic, type Diagnostic } from '../generator/index.js';

/** An error the CLI reports as one line and exits on; `exitCode` 2 means the command line was wrong. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Where a command's output goes. Human-readable text on stdout, progress and diagnostics on
 * stderr; with `--json` stdout carries exactly one JSON document (results, or `{ok:false,error}`).
 */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** A line for people (suppressed with --json, where it would corrupt the document). */
  info(line: string): void {
    if (!this.json) this.stdout.write(`${line}\n`);
  }

  /** Progress that is useful in both modes goes to stderr. */
  progress(line: string): void {
    this.stderr.write(`${line}\n`);
  }

  /** Raw text on stdout as it arrives (streamed answers), human mode only. */
  write(text: string): void {
    if (!this.json) this.stdout.write(text);
  }

  result(value: unknown): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  diagnostics(list: readonly Diagnostic[]): void {
    for (const d of list) this.stderr.write(`${formatDiagnostic(d)}\n`);
  }

  error(message: string): void {
    this.stderr.write(`triton-studio: error: ${message}\n`);
    if (this.json) this.stdout.write(`${JSON.stringify({ ok: false, error: message }, null, 2)}\n`);
  }
}
