/**
 * An OpenAI-compatible front for Triton: `/v1/completions`, `/v1/chat/completions` (streamed as
 * Server-Sent Events or not) and `/v1/models`, each request translated to the ensemble's
 * `text_input` / `max_tokens` / `stream` → `text_output` interface over gRPC ModelStreamInfer.
 * A chat goes to the pipeline's `messages` / `tools` / `chat_template_kwargs` inputs when it has
 * them (its tokenize step renders the model's own chat template), and sampling fields to the
 * inputs of TensorRT-LLM's names it has (`temperature`, `top_p`, `stop_words`…).
 * Token counts in `usage` come from the pipeline's own native tokenizer; a chat sent as a conversation
 * is counted as the ids the model step receives (rendered and encoded as the tokenize step does).
 *
 * A request can fail only itself: bodies and prompts have size limits checked before anything is
 * parsed or tokenized, requests beyond the concurrency limit wait (their bodies unread) or are
 * refused with 429, every error is an OpenAI error object, and a client that hangs up has its
 * request cancelled at Triton.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TritonClient } from '../grpc/client.js';
import { CancelPacer } from '../grpc/cancelPacer.js';
import type { ChatRenderer } from '../chat/chatRenderer.js';
import type { NativeTokenizer } from '../tokenizer/nativeTokenizer.js';
import { serverVersionNotes } from '../serverVersion.js';
import { OpenAiFront } from './front.js';

/**
 * On a server with the burst-cancellation fault: 50 clients hanging up at once, 12 times over,
 * left Triton 2.51 serving with 250 ms between cancellations; with 20 ms it crashed in the 5th
 * burst, unpaced in the 1st (docs/BENCHMARKS.md has the command).
 */
const AFFECTED_SERVER_CANCEL_GAP_MS = 250;

export interface OpenAiServerOptions {
  /** The Triton server the front translates to. */
  triton: TritonClient;
  /** Counts `usage` tokens (the pipeline's tokenizer). */
  tokenizer: NativeTokenizer;
  /**
   * Renders with the chat template of the pipeline's tokenize step: a chat sent to a model with a
   * `messages` input is counted as the step renders and encodes it. Without it, its flattened text is counted.
   */
  chatRenderer?: ChatRenderer;
  /** Default 127.0.0.1; 0.0.0.0 to serve other machines. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Each request as it ends (the CLI's log line). */
  onRequest?: (line: string) => void;
  /** When set, every request must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** A larger request body is refused with 413 before it is read (default 4 MiB). */
  maxBodyBytes?: number;
  /** A prompt (chat: the rendered messages) over this many UTF-8 bytes is refused with 400 before it is tokenized (default 1 MiB). */
  maxPromptBytes?: number;
  /** A prompt over this many tokens is refused with 400 before it reaches Triton (default: no limit here; the steps have their own). */
  maxPromptTokens?: number;
  /** Requests handled at once (default 64); more wait, unread, in a queue of `maxQueued` (default 1024), beyond which 429. */
  maxConcurrent?: number;
  maxQueued?: number;
  /**
   * Cancellations at Triton go out one at a time, this far apart (see CancelPacer). Default: 250 ms
   * for a server with the burst-cancellation fault (before 2.53), else 0.
   */
  cancelGapMs?: number;
}

export const OPENAI_DEFAULT_LIMITS = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxPromptBytes: 1024 * 1024,
  maxConcurrent: 64,
  maxQueued: 1024,
} as const;

export interface OpenAiServer {
  /** The API base, `http://host:port/v1`. */
  url: string;
  /** What the Triton server's version means for this front (see `serverVersionWarning`). */
  warnings: string[];
  close(): Promise<void>;
}

/** Listens until `close`: each request is answered by one `OpenAiFront` (front.ts) holding the limits and routes. */
export async function startOpenAiServer(options: OpenAiServerOptions): Promise<OpenAiServer> {
  const triton = await serverVersionNotes(options.triton);
  const front = new OpenAiFront({
    triton: options.triton,
    tokenizer: options.tokenizer,
    chatRenderer: options.chatRenderer,
    onRequest: options.onRequest,
    apiKey: options.apiKey,
    limits: { ...OPENAI_DEFAULT_LIMITS, ...definedOnly(options) },
    cancellations: new CancelPacer(
      options.cancelGapMs ?? (triton.warnings.length > 0 ? AFFECTED_SERVER_CANCEL_GAP_MS : 0),
    ),
  });
  const server = createServer((req, res) => front.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    warnings: triton.warnings,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
