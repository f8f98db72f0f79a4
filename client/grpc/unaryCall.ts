/** One ModelInfer call over the latency lab's own HTTP/2 connection, timed at the wire. */
import { performance } from 'node:perf_hooks';
import { status } from '@grpc/grpc-js';
import { decodedResult, type CallTimes, type InferResult } from './inferResult.js';
import { TritonError } from './errors.js';
import type { MessageCall } from './http2Call.js';
import { decodeInferResponse, type EncodedRequest } from './inferCodec.js';

const METHOD = 'ModelInfer';

/**
 * One ModelInfer call of a request encoded once, over the latency lab's own HTTP/2 connection
 * (Http2Channel) and timed at the wire as the stream pool times its requests: from when its bytes
 * go to the connection to the arrival of its trailers, when a gRPC call is complete. What perf's
 * Node engine sends on the grpc-infer endpoint: grpc-js's unary path (`TritonClient.infer`)
 * converts each message to and from objects and runs it through its call layers, which a packet
 * capture showed adding 1.5–3 ms to every latency it reported (docs/BENCHMARKS.md). Nothing is
 * cancelled on a timeout: the request fails on the client and its late answer is dropped.
 */
export function sendUnary(
  open: () => MessageCall,
  request: EncodedRequest,
  url: string,
  timeoutMs?: number,
): Promise<{ result: InferResult } & CallTimes> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () =>
              settle(() =>
                reject(
                  new TritonError(
                    `Triton at ${url} did not answer ${METHOD} within ${timeoutMs} ms: raise the timeout or check the server log`,
                    status.DEADLINE_EXCEEDED,
                    METHOD,
                  ),
                ),
              ),
            timeoutMs,
          );
    let result: InferResult | undefined;
    let unreadable: Error | undefined;
    const call = open();
    // As the stream pool times a send: when the request's bytes go to the connection.
    const sentMs = performance.now();
    call.onMessage((bytes) => {
      try {
        result = decodedResult(decodeInferResponse(bytes), METHOD);
      } catch (error) {
        unreadable = error as Error;
      }
    });
    call.onClose((error, trailersMs) =>
      settle(() => {
        const failure =
          error ??
          unreadable ??
          (result ? undefined : new TritonError(`${METHOD} ended without a response`, undefined, METHOD));
        if (failure) reject(failure);
        else resolve({ result: result!, sentMs, endMs: trailersMs ?? performance.now() });
      }),
    );
    call.write(request.bytes());
    call.end();
  });
}
