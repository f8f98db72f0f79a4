/**
 * The wrapper every command handler runs in: its Output, and any error as one line and an exit
 * code.
 */
import type { Command } from 'commander';
import { CliError, Output } from './io.js';

/**
 * Wraps a command handler: gives it an Output (JSON or text per `--json`), turns any thrown
 * error into one clear line on stderr and a non-zero exit code, and never lets a stack trace
 * reach the user for an expected failure.
 */
export function action<A extends unknown[]>(
  handler: (out: Output, ...args: A) => Promise<number | void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const out = new Output(Boolean(command.opts().json));
    try {
      process.exitCode = (await handler(out, ...(args.slice(0, -1) as A))) ?? 0;
    } catch (error) {
      out.error(error instanceof Error ? error.message : String(error));
      process.exitCode = error instanceof CliError ? error.exitCode : 1;
    }
  };
}
