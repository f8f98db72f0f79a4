/**
 * What perf's native engine sends through a gRPC transport: the same encoded requests and the same
 * error messages as the Node engine's session (GrpcTransport.prepare, PromptSender), built from the
 * model's own config.
 */
import { status } from '@grpc/grpc-js';
import { encodeStreamRequest } from '../../grpc/client.js';
import { connectionError, toTritonError, TritonError } from '../../grpc/errors.js';
import { promptInputs, TEXT_OUTPUT } from '../../prompt.js';
import { withDecoupledHint } from '../../transports/errors.js';
import type { GrpcTransport } from '../../transports/grpc.js';
import type { NativeFailure, NativeTarget } from './nativeEngine.js';
import type { RequestInput } from '../inputs/dataset.js';

export interface NativeTargetOptions {
  driver: string;
  model: string;
  inputs: readonly RequestInput[];
  /** The test's output length where an input has none. */
  maxTokens?: number;
  stream: boolean;
  timeoutMs?: number;
}

/** Whether the native engine can drive this transport (plaintext gRPC; TLS stays with the Node engine). */
export function nativeCapable(transport: GrpcTransport): boolean {
  return !transport.client.channelSettings().tls;
}

export async function grpcNativeTarget(
  transport: GrpcTransport,
  options: NativeTargetOptions,
): Promise<NativeTarget> {
  const { client, endpoint } = transport;
  const settings = client.channelSettings();
  if (settings.tls) {
    throw new Error("perf's native engine does not speak TLS yet: use --engine node for a TLS server");
  }
  const streamed = endpoint === 'grpc-stream';
  if (!streamed && options.stream) {
    throw new Error(
      'gRPC ModelInfer answers in one response: leave out --stream, or use --endpoint grpc-stream',
    );
  }
  const config = await client.modelConfig(options.model);
  const method = streamed ? 'ModelStreamInfer' : 'ModelInfer';
  const requests = options.inputs.map((input) =>
    encodeStreamRequest(
      options.model,
      promptInputs(config, {
        text: input.text,
        maxTokens: input.maxTokens ?? options.maxTokens,
        stream: streamed && options.stream,
      }),
      { outputs: [TEXT_OUTPUT], emptyFinalResponse: streamed },
    ).bytes(),
  );
  const url = settings.url;
  const security = { tls: false, clientCertificate: false };
  const toError = (failure: NativeFailure): Error => {
    if (failure.kind === 'server') {
      // An error response inside the stream, in the stream pool's words.
      return new TritonError(`${method} failed: ${failure.message}`, undefined, method, failure.message);
    }
    if (failure.kind === 'timeout') {
      return toTritonError({ code: status.DEADLINE_EXCEEDED, details: '' }, url, method, options.timeoutMs);
    }
    if (failure.code === status.OK) {
      return new TritonError(`Triton at ${url} closed the ${method} stream`, status.UNAVAILABLE, method);
    }
    if (failure.code === status.UNAVAILABLE) {
      // The driver says "Connection refused" (strerror) where Node says ECONNREFUSED: the same diagnosis either way.
      const details = /connection refused/i.test(failure.message)
        ? `connect ECONNREFUSED ${url}`
        : failure.message;
      return connectionError(url, method, details, status.UNAVAILABLE, security);
    }
    const error = toTritonError(
      { code: failure.code, details: failure.message },
      url,
      method,
      options.timeoutMs,
    );
    return streamed ? error : withDecoupledHint(error);
  };
  return {
    driver: options.driver,
    url,
    method: streamed ? 'stream' : 'infer',
    headers: settings.headers,
    timeoutMs: options.timeoutMs,
    requests,
    toError,
  };
}
