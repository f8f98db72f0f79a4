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
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import type { TritonClient } from '../grpc/client.js';
import { CancelPacer } from '../grpc/cancelPacer.js';
import { TritonError } from '../grpc/errors.js';
import type { ModelConfig } from '../grpc/types.js';
import type { ChatRenderer } from '../chat/chatRenderer.js';
import { ChatRenderError } from '../chat/renderChat.js';
import { stepRenderRequest } from '../chat/stepRender.js';
import { MESSAGES, promptInputs, sendPrompt } from '../prompt.js';
import type { NativeTokenizer } from '../tokenizer/nativeTokenizer.js';
import {
  ApiError,
  chunk,
  completion,
  finishReason,
  parseRequest,
  usage,
  type Kind,
  type ParsedRequest,
} from './protocol.js';
import { RequestGate } from './requestGate.js';
import { serverVersionNotes } from '../serverVersion.js';

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

export async function startOpenAiServer(options: OpenAiServerOptions): Promise<OpenAiServer> {
  const configs = new Map<string, Promise<ModelConfig>>();
  const configOf = (model: string) => {
    let config = configs.get(model);
    if (!config) {
      config = options.triton.modelConfig(model);
      configs.set(model, config);
      // A model that was missing (or failed) is looked up again next time: it may be deployed by then.
      config.catch(() => configs.delete(model));
    }
    return config;
  };

  const limits = { ...OPENAI_DEFAULT_LIMITS, ...definedOnly(options) };
  const gate = new RequestGate(limits.maxConcurrent, limits.maxQueued);
  const key = options.apiKey !== undefined ? digest(options.apiKey) : undefined;
  const triton = await serverVersionNotes(options.triton);
  const cancellations = new CancelPacer(
    options.cancelGapMs ?? (triton.warnings.length > 0 ? AFFECTED_SERVER_CANCEL_GAP_MS : 0),
  );

  const server = createServer((req, res) => {
    // One request's failure is that request's answer, never the process's end.
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    handleGated(req, res).catch((error: unknown) => fail(res, asApiError(error)));
  });

  async function handleGated(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (key !== undefined && !authorized(req, key)) {
      res.setHeader('www-authenticate', 'Bearer');
      throw new ApiError(
        401,
        'missing or wrong API key: send the header Authorization: Bearer <key> (the key given to openai-serve --api-key)',
        'authentication_error',
        null,
        'invalid_api_key',
      );
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
    // A client gone while its request waits takes its place back; one gone while it runs has its
    // request cancelled at Triton (paced: see CancelPacer).
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const release = await gate.enter(gone.signal);
    try {
      await handle(req, res, cancellations.paced(gone.signal));
    } finally {
      release();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') {
      const models = await options.triton.repositoryIndex({ readyOnly: true });
      return json(res, 200, {
        object: 'list',
        data: models.map((m) => ({ id: m.name, object: 'model', created: 0, owned_by: 'triton' })),
      });
    }
    const kind: Kind | undefined =
      path === '/v1/completions' ? 'completions' : path === '/v1/chat/completions' ? 'chat' : undefined;
    if (!kind)
      throw new ApiError(
        404,
        `no route ${req.method} ${path}: the front serves /v1/completions, /v1/chat/completions and /v1/models`,
        'not_found_error',
      );
    if (req.method !== 'POST') throw new ApiError(405, `${path} takes POST`);
    const request = parseRequest(kind, await readJson(req, limits.maxBodyBytes), limits);
    const config = await configOf(request.model);
    try {
      // The same inputs sendPrompt builds: a model that cannot take them is the request's error.
      promptInputs(config, {
        text: request.prompt,
        maxTokens: request.maxTokens,
        stream: request.stream,
        chat: request.chat,
        extra: request.sampling,
      });
    } catch (error) {
      throw new ApiError(400, (error as Error).message, 'invalid_request_error', 'model');
    }
    const promptTokens = countPrompt(request, config);
    // Settled later (awaited, or the request failed first): never an unhandled rejection.
    promptTokens.catch(() => undefined);
    if (limits.maxPromptTokens !== undefined) await promptTokens;
    await (request.stream ? streamed : unary)(request, config, res, promptTokens, gone);
  }

  /** The prompt's tokens; over `maxPromptTokens` a 400 that says by how much. */
  async function countPrompt(request: ParsedRequest, config: ModelConfig): Promise<number> {
    const tokens = await options.tokenizer.count(await promptText(request, config));
    if (limits.maxPromptTokens !== undefined && tokens > limits.maxPromptTokens) {
      throw new ApiError(
        400,
        `the prompt is ${tokens} tokens, over this server's limit of ${limits.maxPromptTokens} ` +
          '(openai-serve --max-prompt-tokens): shorten it',
        'invalid_request_error',
        request.kind === 'chat' ? 'messages' : 'prompt',
        'context_length_exceeded',
      );
    }
    return tokens;
  }

  /** The text the model's ids come from: a conversation as its tokenize step renders it, else the prompt. */
  async function promptText(request: ParsedRequest, config: ModelConfig): Promise<string> {
    const renderer = options.chatRenderer;
    if (!request.chat || !renderer || !config.input.some((i) => i.name === MESSAGES)) return request.prompt;
    try {
      return await renderer.render(stepRenderRequest(request.chat));
    } catch (error) {
      // The step renders the same template: its own error (a raise_exception) answers the request.
      if (error instanceof ChatRenderError) return request.prompt;
      throw error;
    }
  }

  async function unary(
    request: ParsedRequest,
    config: ModelConfig,
    res: ServerResponse,
    promptTokens: Promise<number>,
    gone: AbortSignal,
  ): Promise<void> {
    const answer = await sendPrompt(options.triton, {
      model: request.model,
      config,
      text: request.prompt,
      chat: request.chat,
      extra: request.sampling,
      maxTokens: request.maxTokens,
      stream: false,
      signal: gone,
    });
    const completionTokens = await options.tokenizer.count(answer.text);
    const counted = usage(await promptTokens, completionTokens);
    json(
      res,
      200,
      completion(
        request.kind,
        head(request),
        answer.text,
        finishReason(completionTokens, request.maxTokens),
        counted,
      ),
    );
    options.onRequest?.(
      `${request.kind} ${request.model}: ${counted.prompt_tokens} → ${completionTokens} tokens`,
    );
  }

  async function streamed(
    request: ParsedRequest,
    config: ModelConfig,
    res: ServerResponse,
    promptTokens: Promise<number>,
    gone: AbortSignal,
  ): Promise<void> {
    const h = head(request);
    const send = (data: object | string) => {
      if (!res.writableEnded && !res.destroyed) {
        res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      }
    };
    const nulls = request.includeUsage ? { usage: null } : {};
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
      if (request.kind === 'chat') send(chunk('chat', h, { role: true, ...nulls }));
    };
    let answer;
    try {
      answer = await sendPrompt(options.triton, {
        model: request.model,
        config,
        text: request.prompt,
        chat: request.chat,
        extra: request.sampling,
        maxTokens: request.maxTokens,
        stream: true,
        // A client that hangs up has its request cancelled at Triton (its model step stops).
        signal: gone,
        onText: (text) => {
          start();
          send(chunk(request.kind, h, { text, ...nulls }));
        },
      });
    } catch (error) {
      if (!started || gone.aborted) throw error;
      // Headers are gone: the error travels as an event, as OpenAI-compatible servers send it.
      send(asApiError(error).body());
      send('[DONE]');
      res.end();
      return;
    }
    start();
    const completionTokens = await options.tokenizer.count(answer.text);
    send(chunk(request.kind, h, { finish: finishReason(completionTokens, request.maxTokens), ...nulls }));
    if (request.includeUsage)
      send(chunk(request.kind, h, { usage: usage(await promptTokens, completionTokens) }));
    send('[DONE]');
    res.end();
    options.onRequest?.(
      `${request.kind} ${request.model} (stream): ${await promptTokens} → ${completionTokens} tokens`,
    );
  }

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

function head(request: ParsedRequest) {
  return {
    id: `${request.kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
  };
}

const STEP_PROMPT_LIMIT = /over this step's limit of \d+.*\(parameter max_input_(bytes|tokens)\)/;

/** Triton's failures in OpenAI's terms: an unknown model is 404, a request the pipeline refused 400, the rest 502. */
function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof TritonError) {
    if (error.code === status.NOT_FOUND || /unknown model|not found/i.test(error.serverMessage)) {
      return new ApiError(
        404,
        `${message} (deploy the ensemble, or list models at /v1/models)`,
        'not_found_error',
        'model',
        'model_not_found',
      );
    }
    if (error.code === status.INVALID_ARGUMENT) return new ApiError(400, message, 'invalid_request_error');
    // A stream's error carries no code, only the words: the native steps' prompt limits
    // (backends/triton tokenize_runner.h) are the client's to fix.
    if (STEP_PROMPT_LIMIT.test(error.serverMessage))
      return new ApiError(400, message, 'invalid_request_error', null, 'context_length_exceeded');
    // The pipeline answered this request with an error (its chat template's raise_exception, a
    // conversation it cannot render): Triton's stream carries no status code for those, and the
    // server itself is fine, so it is the request OpenAI's clients should see refused.
    if (error.code === undefined && error.serverMessage)
      return new ApiError(400, error.serverMessage, 'invalid_request_error');
    if (error.code === status.UNAVAILABLE) return new ApiError(503, message, 'server_error');
  }
  return new ApiError(502, message, 'server_error');
}

function fail(res: ServerResponse, error: ApiError): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.end();
    return;
  }
  // A refused body is not read on: the connection closes after the answer.
  if (error.status === 413) res.setHeader('connection', 'close');
  if (error.status === 429) res.setHeader('retry-after', '1');
  json(res, error.status, error.body());
}

function tooLarge(max: number): ApiError {
  return new ApiError(
    413,
    `the request body is over this server's limit of ${max} bytes (openai-serve --max-body-bytes)`,
  );
}

/** Keys are compared as SHA-256 digests: equal lengths, so the comparison takes constant time. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function authorized(req: IncomingMessage, key: Buffer): boolean {
  const match = /^Bearer +(.+)$/i.exec(req.headers.authorization ?? '');
  return timingSafeEqual(digest(match?.[1]?.trim() ?? ''), key) && match !== null;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function json(res: ServerResponse, code: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new ApiError(400, 'the request body is not JSON');
  }
}
