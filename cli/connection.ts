/**
 * The server options every command that talks to a server shares (address, headers, TLS,
 * endpoint).
 */
import { Option, type Command } from 'commander';
import { header, seconds } from './options.js';
import {
  createTransport,
  ENDPOINTS,
  GrpcTransport,
  readTlsFiles,
  TritonClient,
  type Endpoint,
  type PromptTransport,
} from '../client/index.js';
import { CliError } from './io.js';

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

function tlsFiles(options: ConnectionOptions) {
  return { ca: options.tlsCa, cert: options.tlsCert, key: options.tlsKey, serverName: options.tlsServerName };
}

function wantsTls(options: ConnectionOptions): boolean {
  return !!options.tls || Object.values(tlsFiles(options)).some((v) => v !== undefined);
}

export function connect(options: ConnectionOptions): TritonClient {
  const files = tlsFiles(options);
  const tls = wantsTls(options);
  return new TritonClient(options.url, {
    headers: options.header,
    timeoutMs: options.timeout !== undefined ? options.timeout * 1000 : undefined,
    tls: tls ? readTlsFiles(files) : undefined,
  });
}

/** `--endpoint`: which protocol carries prompts (`perf`, `prompt`). */
export function withEndpointOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--endpoint <kind>',
      'grpc-stream (ModelStreamInfer), grpc-infer (ModelInfer), http-infer, generate (generate_stream with --stream), ' +
        'or OpenAI-compatible completions / chat; --url is then the HTTP address (OpenAI: its /v1 base)',
    )
      .choices([...ENDPOINTS])
      .default('grpc-stream'),
  );
}

/** The endpoint's transport: gRPC ones through `connect` (TLS included); HTTP ones over http:// or https://. */
export function connectTransport(options: ConnectionOptions & { endpoint: Endpoint }): PromptTransport {
  if (options.endpoint === 'grpc-stream' || options.endpoint === 'grpc-infer') {
    return new GrpcTransport(connect(options), options.endpoint, true);
  }
  if (wantsTls(options)) {
    throw new CliError(
      `the --tls options are for gRPC; for --endpoint ${options.endpoint} give an https:// --url`,
      2,
    );
  }
  return createTransport(options.endpoint, options.url, {
    headers: options.header,
    timeoutMs: options.timeout !== undefined ? options.timeout * 1000 : undefined,
  });
}
