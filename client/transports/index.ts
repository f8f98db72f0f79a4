/**
 * The transports that carry prompts (gRPC, Triton's generate endpoint, OpenAI), chosen by
 * endpoint.
 */
import { TritonClient } from '../grpc/client.js';
import { GrpcTransport } from './grpc.js';
import { OpenAiTransport } from './openai.js';
import { TritonHttpTransport } from './tritonHttp.js';
import { ENDPOINTS, type Endpoint, type PromptTransport } from './types.js';

export interface TransportOptions {
  headers?: Record<string, string>;
  /** Deadline for control calls (config, statistics). */
  timeoutMs?: number;
  /** OpenAI endpoints: the API key. */
  apiKey?: string;
}

/** The transport for an endpoint at a URL (gRPC: host:port; HTTP: host:port or http://…). */
export function createTransport(
  endpoint: Endpoint,
  url: string,
  options: TransportOptions = {},
): PromptTransport {
  switch (endpoint) {
    case 'grpc-stream':
    case 'grpc-infer':
      return new GrpcTransport(new TritonClient(url, options), endpoint, true);
    case 'http-infer':
    case 'generate':
      return new TritonHttpTransport(endpoint, url, options);
    case 'completions':
    case 'chat':
      return new OpenAiTransport(endpoint, url, options);
    default:
      throw new Error(`unknown endpoint '${String(endpoint)}' (known: ${ENDPOINTS.join(', ')})`);
  }
}

export {
  ENDPOINTS,
  OPENAI_ENDPOINTS,
  UNARY_ENDPOINTS,
  type Endpoint,
  type PromptRequest,
  type PromptSession,
  type SessionOptions,
  type PromptTransport,
} from './types.js';
export { GrpcTransport } from './grpc.js';
export { TritonHttpTransport } from './tritonHttp.js';
export { OpenAiTransport } from './openai.js';
export { EndpointError, isUnavailable } from './errors.js';
