/** TLS options of the gRPC channel, and reading them from PEM files. */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

/** TLS for the gRPC channel. `{}` is TLS with the system's CAs; files are PEM contents. */
export interface TlsOptions {
  /** CA that signed the server's certificate; default: the system's CAs. */
  rootCertificate?: Buffer;
  /** Client certificate and key for mutual TLS; they go together. */
  clientCertificate?: Buffer;
  clientKey?: Buffer;
  /** Name to verify the server's certificate against (and send as SNI) instead of the host. */
  serverName?: string;
}

/** Where the TLS material lives: the paths users give (`--tls-ca`, `--tls-cert`, `--tls-key`). */
export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
}

/** TLS material that cannot be used, with what to do. Names paths only, never file contents. */
export class TlsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsFileError';
  }
}

/**
 * Reads and checks TLS files before any connection is tried, so a wrong path or a key that is
 * not the certificate's is named here rather than as a failed handshake later.
 */
export function readTlsFiles(files: TlsFiles): TlsOptions {
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new TlsFileError(
      `--tls-cert and --tls-key go together (mutual TLS): give both the client certificate and its private key, or neither`,
    );
  }
  const read = (path: string, what: string, flag: string): Buffer => {
    let contents: Buffer;
    try {
      contents = readFileSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new TlsFileError(`${flag} '${path}' cannot be read (${code}): give the ${what} as a PEM file`);
    }
    if (!contents.includes('-----BEGIN ')) {
      throw new TlsFileError(
        `${flag} '${path}' is not a PEM file: give the ${what} in PEM form (-----BEGIN …)`,
      );
    }
    return contents;
  };
  const tls: TlsOptions = {
    rootCertificate: files.ca === undefined ? undefined : read(files.ca, 'CA certificate', '--tls-ca'),
    clientCertificate:
      files.cert === undefined ? undefined : read(files.cert, 'client certificate', '--tls-cert'),
    clientKey: files.key === undefined ? undefined : read(files.key, 'client private key', '--tls-key'),
    serverName: files.serverName,
  };
  try {
    // The checks grpc-js would otherwise make only when the first call connects.
    createSecureContext({ ca: tls.rootCertificate, cert: tls.clientCertificate, key: tls.clientKey });
  } catch (error) {
    // OpenSSL's reason (e.g. "key values mismatch") never quotes the key itself.
    const reason = error instanceof Error ? error.message.replace(/^error:[0-9A-F]+:/, '') : String(error);
    throw new TlsFileError(
      /KEY_VALUES_MISMATCH/.test((error as NodeJS.ErrnoException).code ?? '')
        ? `--tls-key '${files.key}' is not the private key of --tls-cert '${files.cert}'`
        : `the TLS files (${[files.ca, files.cert, files.key].filter(Boolean).join(', ')}) cannot be used: ${reason}`,
    );
  }
  return tls;
}
