/**
 * A prompt transport: one way of sending a prompt to a server and timing its answer. `perf` and
 * `prompt` pick one with `--endpoint`; every transport reports the same `PromptResult`, so the
 * metrics (TTFT, ITL, …) mean the same thing whichever protocol carried the request.
 */
import type { ModelStatistics } from '../grpc/types.js';
import type { PromptResult } from '../prompt.js';

/**
 * Triton's own protocols and the OpenAI-compatible API, as `--endpoint` names them:
 * - `grpc-stream`: gRPC ModelStreamInfer (ordinary and decoupled models; the default)
 * - `grpc-infer`: gRPC ModelInfer (one response; not for decoupled models)
 * - `http-infer`: HTTP/REST `v2/models/M/infer` (KServe v2 JSON; not for decoupled models)
 * - `generate`: HTTP `v2/models/M/generate`, or `generate_stream` (SSE) when streaming
 * - `completions`: OpenAI `/v1/completions`, `stream: true` when streaming
 * - `chat`: OpenAI `/v1/chat/completions`, `stream: true` when streaming
 */
export const ENDPOINTS = [
  'grpc-stream',
  'grpc-infer',
  'http-infer',
  'generate',
  'completions',
  'chat',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Endpoints that answer in one response: a streamed request cannot go through them. */
export const UNARY_ENDPOINTS: readonly Endpoint[] = ['grpc-infer', 'http-infer'];

/** Endpoints of the OpenAI-compatible API (an HTTP URL, no Triton statistics). */
export const OPENAI_ENDPOINTS: readonly Endpoint[] = ['completions', 'chat'];

export interface PromptRequest {
  text: string;
  /** Tokens to generate (`max_tokens`). */
  maxTokens?: number;
  /** Each chunk as it arrives (streamed requests). */
  onText?: (chunk: string) => void;
}

export interface SessionOptions {
  /** Ask for incremental responses. */
  stream: boolean;
  /** Per-request deadline; default none. */
  timeoutMs?: number;
}

/** Prompts to one prepared model; each result's times start at its send. */
export interface PromptSession {
  send(request: PromptRequest): Promise<PromptResult>;
  /** Releases what the session holds (pooled streams). */
  close(): void;
}

export interface PromptTransport {
  readonly endpoint: Endpoint;
  /** Where requests go, as the user gave it (normalized). */
  readonly url: string;
  /** Checks the model can be reached this way (its config, where the protocol has one). */
  prepare(model: string, options: SessionOptions): Promise<PromptSession>;
  /** Triton's per-model statistics, where this endpoint's server has them. */
  statistics(): Promise<ModelStatistics[] | undefined>;
  close(): void;
}
