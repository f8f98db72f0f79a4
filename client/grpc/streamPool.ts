/**
 * InferStreamPool: requests multiplexed over ModelStreamInfer calls, matched to responses by id.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { status } from '@grpc/grpc-js';
import { TritonError } from './errors.js';
import type { MessageCall } from './http2Call.js';
import { decodeStreamResponse, type DecodedStreamResponse, type EncodedRequest } from './inferCodec.js';
import { decodedResult, type CallTimes, type InferResult } from './inferResult.js';

const METHOD = 'ModelStreamInfer';

interface Pending {
  onResponse: (result: InferResult, arrivedMs: number) => void;
  resolve: (times: CallTimes) => void;
  sentMs: number;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** One ModelStreamInfer call and the requests in flight on it, keyed by request id. */
class PooledStream {
  readonly pending = new Map<string, Pending>();
  /** Ids given up on (timed out): their late responses are dropped. */
  private readonly abandoned = new Set<string>();
  closed = false;

  constructor(
    readonly call: MessageCall,
    url: string,
    onClosed: (stream: PooledStream) => void,
  ) {
    call.onMessage((bytes, arrivedMs) => this.route(decodeStreamResponse(bytes), arrivedMs));
    call.onClose((error) => {
      this.closed = true;
      onClosed(this);
      const failure =
        error ?? new TritonError(`Triton at ${url} closed the ${METHOD} stream`, status.UNAVAILABLE, METHOD);
      for (const p of this.pending.values()) finish(p, failure);
      this.pending.clear();
    });
  }

  send(id: string, bytes: Buffer, pending: Pending): void {
    this.pending.set(id, pending);
    pending.sentMs = performance.now();
    this.call.write(bytes);
  }

  abandon(id: string): void {
    if (this.pending.delete(id)) this.abandoned.add(id);
  }

  private route(message: DecodedStreamResponse, arrivedMs: number): void {
    const response = message.infer_response;
    let id = response?.id ?? '';
    // Triton names the request in an error response; if it ever does not, one request in flight is unambiguous.
    if (!this.pending.has(id) && message.error_message && this.pending.size === 1)
      id = this.pending.keys().next().value!;
    const pending = this.pending.get(id);
    if (!pending) {
      this.abandoned.delete(id);
      return;
    }
    if (message.error_message) {
      this.pending.delete(id);
      finish(
        pending,
        new TritonError(
          `${METHOD} failed: ${message.error_message}`,
          undefined,
          METHOD,
          message.error_message,
        ),
      );
      return;
    }
    if (!response) return;
    const result = decodedResult(response);
    if (!(result.final && result.outputs.size === 0)) pending.onResponse(result, arrivedMs);
    if (result.final) {
      this.pending.delete(id);
      finish(pending, undefined, arrivedMs);
    }
  }
}

function finish(pending: Pending, error?: Error, endMs = performance.now()): void {
  if (pending.timer) clearTimeout(pending.timer);
  if (error) pending.reject(error);
  else pending.resolve({ sentMs: pending.sentMs, endMs });
}

/**
 * Requests over a few long-lived ModelStreamInfer calls instead of a new call (a new HTTP/2
 * stream) per request, as perf_analyzer keeps one stream per request slot: stream set-up was the
 * largest share of the client's CPU per request and added to every latency. A request goes to an
 * idle stream, or a new one while fewer than `maxStreams` are open, so streams normally carry one
 * request at a time (Triton writes one stream's responses in turn); beyond that the least busy
 * stream carries several, told apart by request id. Nothing is ever cancelled: a per-request
 * timeout fails the request on the client and drops its late responses (concurrent stream
 * cancellations crash Triton 2.51, see TRITON.md).
 */
export class InferStreamPool {
  private readonly idle: PooledStream[] = [];
  private readonly open = new Set<PooledStream>();
  /** Unique ids across clients too: streaming detokenize steps key their state on the request id. */
  private readonly idPrefix = randomUUID().slice(0, 8);
  private counter = 0;

  constructor(
    private readonly openCall: () => MessageCall,
    private readonly url: string,
    private readonly maxStreams = 100,
  ) {}

  /**
   * Sends one request and calls `onResponse` for each response with outputs; resolves after the
   * final one, rejects on an error response, a broken stream or the timeout.
   */
  send(
    request: EncodedRequest,
    onResponse: (result: InferResult, arrivedMs: number) => void,
    timeoutMs?: number,
  ): Promise<CallTimes> {
    const stream = this.acquire();
    const id = `${this.idPrefix}-${++this.counter}`;
    return new Promise<CallTimes>((resolve, reject) => {
      const pending: Pending = { onResponse, resolve, reject, sentMs: 0 };
      if (timeoutMs !== undefined) {
        pending.timer = setTimeout(() => {
          stream.abandon(id);
          this.release(stream);
          reject(
            new TritonError(
              `Triton at ${this.url} did not answer ${METHOD} within ${timeoutMs} ms: raise the timeout or check the server log`,
              status.DEADLINE_EXCEEDED,
              METHOD,
            ),
          );
        }, timeoutMs);
      }
      stream.send(id, request.withId(id), pending);
    }).finally(() => this.release(stream));
  }

  /** Ends every stream (requests still in flight finish first on the server's side). */
  close(): void {
    for (const stream of this.open) stream.call.end();
    this.open.clear();
    this.idle.length = 0;
  }

  private acquire(): PooledStream {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.open.size < this.maxStreams) {
      const stream = new PooledStream(this.openCall(), this.url, (s) => this.forget(s));
      this.open.add(stream);
      return stream;
    }
    let least: PooledStream | undefined;
    for (const s of this.open) if (!least || s.pending.size < least.pending.size) least = s;
    return least!;
  }

  private release(stream: PooledStream): void {
    if (!stream.closed && stream.pending.size === 0 && !this.idle.includes(stream)) this.idle.push(stream);
  }

  private forget(stream: PooledStream): void {
    this.open.delete(stream);
    const at = this.idle.indexOf(stream);
    if (at >= 0) this.idle.splice(at, 1);
  }
}
