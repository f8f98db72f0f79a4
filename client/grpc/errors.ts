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

function isServiceError(error: unknown): error is ServiceError {
  return typeof error === 'object' && error !== null && 'code' in error && 'details' in error;
}

/** Maps a gRPC failure to a TritonError; server-side errors keep Triton's message verbatim. */
export function toTritonError(error: unknown, url: string, method: string, deadlineMs?: number): TritonError {
  if (error instanceof TritonError) return error;
  if (!isServiceError(error)) {
    return new TritonError(`${method} to Triton at ${url} failed: ${String(error)}`, undefined, method);
  }
  const details = error.details ?? '';
  switch (error.code) {
    case status.UNAVAILABLE:
      if (/restricted|header/i.test(details)) return restricted(error, url, method, details);
      if (
        /No connection established|ECONNREFUSED|connect|Name resolution|DNS/i.test(details) ||
        details === ''
      ) {
        return new TritonError(
          `cannot reach Triton at ${url}: is it running? start one with \`triton-studio serve REPO\`${connectionCause(details)}`,
          error.code,
          method,
        );
      }
      return new TritonError(
        `Triton at ${url} is unavailable for ${method}: ${details}`,
        error.code,
        method,
        details,
      );
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
