/**
 * EndpointError: a failed HTTP request (Triton REST or OpenAI) with a message that says what to
 * do.
 */
import { status } from '@grpc/grpc-js';
import { TritonError } from '../grpc/errors.js';

/** A failed request over HTTP (Triton's REST endpoints or an OpenAI-compatible server). */
export class EndpointError extends Error {
  constructor(
    message: string,
    /** The server could not be reached (or went away): more requests would fail the same way. */
    readonly unavailable: boolean,
    /** The HTTP status, when the server answered. */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'EndpointError';
  }
}

/** The server is gone (connection refused or reset), whichever protocol said so. */
export function isUnavailable(error: Error): boolean {
  if (error instanceof TritonError) return error.code === status.UNAVAILABLE;
  return error instanceof EndpointError && error.unavailable;
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host name not found',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'no route to host',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
};

/** Maps a network or abort failure of an HTTP request to an EndpointError that says what to do. */
export function httpFailure(
  error: unknown,
  where: { url: string; what: string; timeoutMs?: number; cancelled?: boolean },
): EndpointError {
  if (error instanceof EndpointError) return error;
  const code = errorCode(error);
  const cause = code && CONNECTION_CODES[code];
  if (cause) {
    return new EndpointError(`cannot reach ${where.url} (${cause}): is the server running?`, true);
  }
  if (where.cancelled) return new EndpointError(`${where.what} at ${where.url} was cancelled`, false);
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new EndpointError(
      `${where.url} did not answer ${where.what} within ${where.timeoutMs ?? '?'} ms: raise the timeout or check the server log`,
      false,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new EndpointError(`${where.what} at ${where.url} failed: ${message}`, false);
}

function errorCode(error: unknown): string | undefined {
  for (let e = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in CONNECTION_CODES) return code;
    if (typeof code === 'string' && code.startsWith('UND_ERR_')) return code;
  }
  return undefined;
}

/** Unary endpoints refuse decoupled models (and ensembles around one) in the server's words; say what works instead. */
export function withDecoupledHint<E extends Error>(error: E): E {
  if (/decoupled/i.test(error.message) && !error.message.includes('--endpoint')) {
    error.message += ': this model streams (decoupled); use --endpoint grpc-stream or generate';
  }
  return error;
}
