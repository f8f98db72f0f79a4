/** TritonError: a failed gRPC call as a message that says what happened and what to do. */
import { status, type ServiceError } from '@grpc/grpc-js';

/** A failed call to Triton, with a message that says what happened and what to do. */
export class TritonError extends Error {
  constructor(
    message: string,
    /** gRPC status code (`status.UNAVAILABLE`, …); undefined for client-side failures. */
    readonly code: number | undefined,
    /** The RPC that failed, e.g. `RepositoryModelLoad`. */
    readonly method: string,
    /** The server's own words, unchanged (empty when the server was not reached). */
    readonly serverMessage = '',
  ) {
    super(message);
    this.name = 'TritonError';
  }
}

/** How the failed call's channel was secured: a handshake failure means different things. */
export interface ChannelSecurity {
  tls: boolean;
  clientCertificate: boolean;
}

function isServiceError(error: unknown): error is ServiceError {
  return typeof error === 'object' && error !== null && 'code' in error && 'details' in error;
}

/** Maps a gRPC failure to a TritonError; server-side errors keep Triton's message verbatim. */
export function toTritonError(
  error: unknown,
  url: string,
  method: string,
  deadlineMs?: number,
  security: ChannelSecurity = { tls: false, clientCertificate: false },
): TritonError {
  if (error instanceof TritonError) return error;
  if (!isServiceError(error)) {
    return new TritonError(`${method} to Triton at ${url} failed: ${String(error)}`, undefined, method);
  }
  const details = error.details ?? '';
  switch (error.code) {
    case status.UNAVAILABLE:
      if (/restricted|header/i.test(details)) return restricted(error, url, method, details);
      return connectionError(url, method, details, error.code, security);
    case status.DEADLINE_EXCEEDED:
      return new TritonError(
        `Triton at ${url} did not answer ${method} within ${deadlineMs ?? '?'} ms: raise the timeout or check the server log`,
        error.code,
        method,
        details,
      );
    case status.UNAUTHENTICATED:
    case status.PERMISSION_DENIED:
      return restricted(error, url, method, details);
    case status.CANCELLED:
      return new TritonError(`${method} to Triton at ${url} was cancelled`, error.code, method, details);
    case status.RESOURCE_EXHAUSTED:
      return new TritonError(
        `${method} to Triton at ${url} was too large or the server is out of resources: ${details}`,
        error.code,
        method,
        details,
      );
    default:
      // The server's message is the most useful thing we have: pass it on unchanged.
      return new TritonError(`${method} failed: ${details}`, error.code, method, details);
  }
}

/**
 * No channel: nothing listens, the TLS handshake failed, or the server speaks the other protocol.
 * `details` is grpc-js's text or Node's own connection error (the perf stream pool's http2).
 */
export function connectionError(
  url: string,
  method: string,
  details: string,
  code: number,
  security: ChannelSecurity,
): TritonError {
  const fail = (message: string) => new TritonError(message, code, method, details);
  // grpc-js: "No connection established. Last error: <Node's error>. Resolution note: …"
  const reason = (
    /Last error: (?:Error(?: \[\w+\])?: )?([^\n]*?)\.?(?:\n|\. Resolution note|$)/.exec(details)?.[1] ??
    details.split('\n')[0]!
  ).replace(/^[0-9A-F]+:error:[0-9A-F]+:SSL routines:\w+:([^:]+):.*$/, '$1');
  if (/ALTNAME|does not match certificate/i.test(details)) {
    return fail(
      `Triton at ${url} has a TLS certificate for another name (${reason}): ` +
        'pass --tls-server-name with a name the certificate holds',
    );
  }
  if (/certificate|self[- ]signed|unable to (verify|get)|CERT_/i.test(details)) {
    return fail(
      `Triton at ${url} has a TLS certificate this client does not trust (${reason}): ` +
        'pass the CA that signed it with --tls-ca FILE',
    );
  }
  if (/wrong version number|packet length too long|unknown protocol/i.test(details) && security.tls) {
    return fail(
      `Triton at ${url} does not speak TLS on this port (${reason}): ` +
        'leave out the --tls options, or check that the server runs with --grpc-use-ssl',
    );
  }
  const refused = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|Name resolution|DNS|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/i;
  if (
    /Failed to connect|before secure TLS connection was established/i.test(details) &&
    !refused.test(details)
  ) {
    // The port answered but no HTTP/2 channel came of it: a handshake the server refused.
    if (!security.tls) {
      return fail(
        `Triton at ${url} accepted the connection but not plaintext gRPC: if the server uses TLS ` +
          '(--grpc-use-ssl), pass --tls-ca FILE (or --tls for the system CAs), and --tls-cert/--tls-key for mutual TLS',
      );
    }
    return fail(
      security.clientCertificate
        ? `Triton at ${url} refused the TLS handshake: it does not accept the client certificate ` +
            "(--tls-cert must be signed by a CA in the server's --grpc-root-cert)"
        : `Triton at ${url} refused the TLS handshake: the server asks for a client certificate ` +
            '(mutual TLS, --grpc-use-ssl-mutual): pass --tls-cert FILE and --tls-key FILE',
    );
  }
  if (refused.test(details) || /No connection established/i.test(details) || details === '') {
    // No server answered: serverMessage stays empty (callers tell "unreachable" by that).
    return new TritonError(
      `cannot reach Triton at ${url}: is it running? start one with \`triton-studio serve REPO\`${connectionCause(details)}`,
      code,
      method,
    );
  }
  return fail(`Triton at ${url} is unavailable for ${method}: ${details}`);
}

function restricted(error: ServiceError, url: string, method: string, details: string): TritonError {
  // Triton names the header it wants: "expecting header 'triton-grpc-protocol-<key>'".
  const expected = /expecting header '([^']+)'/.exec(details)?.[1];
  const how = expected
    ? `send it with --header ${expected}=VALUE`
    : 'pass the header it expects with --header KEY=VALUE';
  return new TritonError(
    `Triton at ${url} refused ${method}: ${details} — the server restricts this endpoint ` +
      `(--grpc-restricted-protocol); ${how}`,
    error.code,
    method,
    details,
  );
}
/** The short reason inside grpc-js's connection error text, e.g. " (connection refused)". */
function connectionCause(details: string): string {
  if (/ECONNREFUSED/.test(details)) return ' (connection refused)';
  if (/ENOTFOUND|Name resolution|DNS/i.test(details)) return ' (host name not found)';
  if (/ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/.test(details)) return ' (no route or timed out)';
  return '';
}
