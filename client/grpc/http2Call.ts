/**
 * gRPC calls over one plain Node `http2` connection with gRPC's message framing, for the latency
 * lab's hot path: grpc-js's per-message layers cost client CPU and latency (docs/BENCHMARKS.md).
 * Each call reports when its bytes left and when its last response arrived.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { performance } from 'node:perf_hooks';
import { status } from '@grpc/grpc-js';
import { connectionError, TritonError, type ChannelSecurity } from './errors.js';
import type { TlsOptions } from './tls.js';

/** What the stream pool and unary calls need of one call: send messages, hear them back. */
export interface MessageCall {
  write(message: Buffer): void;
  end(): void;
  /** Each message with when its bytes arrived (performance.now() ms, taken before any decoding). */
  onMessage(handler: (message: Buffer, arrivedMs: number) => void): void;
  /**
   * The call ended: with an error (a gRPC status other than OK, a broken connection), or cleanly;
   * `trailersMs` is when its status (the trailers) arrived, if it did.
   */
  onClose(handler: (error?: Error, trailersMs?: number) => void): void;
}

/**
 * Bidirectional gRPC calls over one HTTP/2 connection with Node's own http2 module and gRPC's
 * message framing (a flag byte, a 4-byte big-endian length, the message), for the latency lab's
 * hot path. grpc-js passes every message through its interceptor, retry, load-balancing and
 * filter layers and an object-mode stream, which profiling showed as the largest share of the
 * client's CPU per request after stream set-up; the rest of the client keeps using grpc-js.
 */
export class Http2Channel {
  private session: ClientHttp2Session | undefined;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly tls?: TlsOptions,
  ) {}

  open(path: string): MessageCall {
    const stream = this.connection().request(
      {
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: path,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        te: 'trailers',
        ...lowerCase(this.headers),
      },
      { endStream: false },
    );
    const security = {
      tls: this.tls !== undefined,
      clientCertificate: this.tls?.clientCertificate !== undefined,
    };
    return new Http2Call(stream, this.url, path.slice(path.lastIndexOf('/') + 1), security);
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }

  private connection(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const tls = this.tls;
    const session = tls
      ? connect(`https://${this.url}`, {
          ca: tls.rootCertificate,
          cert: tls.clientCertificate,
          key: tls.clientKey,
          // Node verifies the certificate against the SNI name when one is given.
          servername: tls.serverName,
        })
      : connect(`http://${this.url}`);
    // A dead connection is reported through each call; don't let it throw on the session.
    session.on('error', () => undefined);
    this.session = session;
    return session;
  }
}

class Http2Call implements MessageCall {
  private pending: Buffer | undefined;
  private messageHandler: (message: Buffer, arrivedMs: number) => void = () => undefined;
  private closeHandler: (error?: Error, trailersMs?: number) => void = () => undefined;
  private closed = false;
  private trailersMs: number | undefined;

  constructor(
    private readonly stream: ClientHttp2Stream,
    private readonly url: string,
    private readonly method: string,
    private readonly security: ChannelSecurity,
  ) {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    let trailers: Record<string, unknown> = {};
    stream.on('trailers', (t) => {
      this.trailersMs = performance.now();
      trailers = t;
    });
    stream.on('response', (headers) => {
      // A call refused at once (unknown method, restricted endpoint) answers with trailers only.
      if (headers['grpc-status'] !== undefined) {
        this.trailersMs = performance.now();
        trailers = headers;
      }
    });
    stream.on('error', (error: Error) => this.close(this.unreachable(error)));
    stream.on('close', () => {
      const code = Number(trailers['grpc-status'] ?? status.UNAVAILABLE);
      if (code === status.OK) this.close();
      else {
        const message = decodeURIComponent(String(trailers['grpc-message'] ?? 'the connection closed'));
        this.close(
          code === status.UNAVAILABLE
            ? this.unreachable(new Error(message))
            : new TritonError(`${this.method} failed: ${message}`, code, this.method, message),
        );
      }
    });
  }

  write(message: Buffer): void {
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    this.stream.write(frame);
  }

  end(): void {
    this.stream.end();
  }

  onMessage(handler: (message: Buffer, arrivedMs: number) => void): void {
    this.messageHandler = handler;
  }

  onClose(handler: (error?: Error, trailersMs?: number) => void): void {
    this.closeHandler = handler;
  }

  private receive(chunk: Buffer): void {
    const arrivedMs = performance.now();
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    while (data.length >= 5) {
      const length = data.readUInt32BE(1);
      if (data.length < 5 + length) break;
      if (data[0] !== 0) {
        this.stream.close(constants.NGHTTP2_CANCEL);
        this.close(
          new TritonError(`${this.method}: compressed messages are not supported`, undefined, this.method),
        );
        return;
      }
      this.messageHandler(data.subarray(5, 5 + length), arrivedMs);
      data = data.subarray(5 + length);
    }
    this.pending = data.length > 0 ? data : undefined;
  }

  private unreachable(error: Error): TritonError {
    return connectionError(this.url, this.method, error.message, status.UNAVAILABLE, this.security);
  }

  private close(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.closeHandler(error, this.trailersMs);
  }
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
