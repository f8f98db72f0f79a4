/** commander argument parsers the commands share: numbers, seconds, headers. */
import { InvalidArgumentError, type Command } from 'commander';
import { CliError } from './io.js';
import { architecture, type Architecture } from '../generator/index.js';

/** commander argument parser for whole numbers ≥ min. */
export function wholeNumber(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}, got '${value}'`);
    }
    return n;
  };
}

/** commander argument parser for a number > 0 (fractions allowed), e.g. a request rate. */
export function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError(`expected a number > 0, got '${value}'`);
  }
  return n;
}

/** commander argument parser for seconds (> 0, fractions allowed). */
export function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a number of seconds > 0, got '${value}'`);
  return n;
}

/** Collects repeated `--header KEY=VALUE` options into a record. */
export function header(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  // Not an InvalidArgumentError: commander would quote the argument, and a mistyped header
  // (`key:token`, a bare token) is still a secret.
  if (at <= 0) {
    throw new CliError(
      "option '--header <key=value>': expected KEY=VALUE (the argument is not shown: it may hold a secret)",
      2,
    );
  }
  return { ...previous, [value.slice(0, at).trim()]: value.slice(at + 1) };
}

/** The options of the commands that start a local tritonserver (`serve`, `server start`). */
export interface LocalServerOptions {
  httpPort?: number;
  grpcPort?: number;
  metricsPort?: number;
  logVerbose?: number;
  tritonserver?: string;
  arch?: Architecture;
}

export function withLocalServerOptions(command: Command): Command {
  return command
    .option('--http-port <n>', 'HTTP port (default: a free one)', wholeNumber(1))
    .option('--grpc-port <n>', 'gRPC port (default: a free one)', wholeNumber(1))
    .option('--metrics-port <n>', 'Prometheus metrics port (default: a free one)', wholeNumber(1))
    .option('--log-verbose <n>', 'tritonserver --log-verbose level', wholeNumber(0))
    .option(
      '--tritonserver <path>',
      'tritonserver binary (default: $TRITON_STUDIO_TRITONSERVER or the project .venv)',
    )
    .option(
      '--arch <arch>',
      "serve with the server built for this CPU (x86_64, aarch64; another than this machine's runs under qemu-user)",
      targetArch,
    );
}

/** commander argument parser for a target CPU architecture (`x86_64`, `aarch64`). */
export function targetArch(value: string): Architecture {
  try {
    return architecture(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}
