import type { Command } from 'commander';
import { header, seconds } from './options.js';
import { readTlsFiles, TritonClient } from '../client/index.js';

export interface ConnectionOptions {
  url: string;
  header?: Record<string, string>;
  timeout?: number;
  tls?: boolean;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsServerName?: string;
}

/** The options every command that talks to a server takes: one path for address, headers and TLS. */
export function withConnectionOptions(command: Command): Command {
  return command
    .requiredOption('--url <host:port>', "Triton's gRPC address, e.g. 127.0.0.1:8001")
    .option(
      '--header <key=value>',
      'metadata sent with every call, e.g. the key of a restricted endpoint; repeatable (values are never printed)',
      header,
    )
    .option('--timeout <seconds>', 'deadline for control calls (default 30)', seconds)
    .option('--tls', "TLS with the system's CAs (implied by the other --tls-* options)")
    .option('--tls-ca <pem>', "CA certificate that signed the server's certificate")
    .option('--tls-cert <pem>', 'client certificate, for servers that require mutual TLS (with --tls-key)')
    .option('--tls-key <pem>', "the client certificate's private key")
    .option(
      '--tls-server-name <name>',
      "the name in the server's certificate, when it is not the --url host",
    );
}

export function connect(options: ConnectionOptions): TritonClient {
  const files = {
    ca: options.tlsCa,
    cert: options.tlsCert,
    key: options.tlsKey,
    serverName: options.tlsServerName,
  };
  const tls = options.tls || Object.values(files).some((v) => v !== undefined);
  return new TritonClient(options.url, {
    headers: options.header,
    timeoutMs: options.timeout !== undefined ? options.timeout * 1000 : undefined,
    tls: tls ? readTlsFiles(files) : undefined,
  });
}
