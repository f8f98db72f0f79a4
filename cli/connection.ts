import type { Command } from 'commander';
import { header, seconds } from './options.js';
import { TritonClient } from '../client/index.js';

export interface ConnectionOptions {
  url: string;
  header?: Record<string, string>;
  timeout?: number;
}

/** The options every command that talks to a server takes. */
export function withConnectionOptions(command: Command): Command {
  return command
    .requiredOption('--url <host:port>', "Triton's gRPC address, e.g. 127.0.0.1:8001")
    .option(
      '--header <key=value>',
      'metadata sent with every call (restricted endpoints); repeatable',
      header,
    )
    .option('--timeout <seconds>', 'deadline for control calls (default 30)', seconds);
}

export function connect(options: ConnectionOptions): TritonClient {
  return new TritonClient(options.url, {
    headers: options.header,
    timeoutMs: options.timeout !== undefined ? options.timeout * 1000 : undefined,
  });
}
