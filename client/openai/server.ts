/**
 * An OpenAI-compatible front for Triton: `/v1/completions`, `/v1/chat/completions` (streamed as
 * Server-Sent Events or not) and `/v1/models`, each request translated to the ensemble's
 * `text_input` / `max_tokens` / `stream` → `text_output` interface over gRPC ModelStreamInfer.
 * A chat goes to the pipeline's `messages` / `tools` / `chat_template_kwargs` inputs when it has
 * them (its tokenize step renders the model's own chat template), and sampling fields to the
 * inputs of TensorRT-LLM's names it has (`temperature`, `top_p`, `stop_words`…).
 * Token counts in `usage` come from the pipeline's own native tokenizer.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { status } from '@grpc/grpc-js';
import type { TritonClient } from '../grpc/client.js';
import { TritonError } from '../grpc/errors.js';
import type { ModelConfig } from '../grpc/types.js';
import { sendPrompt } from '../prompt.js';
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

export interface OpenAiServerOptions {
  /** The Triton server the front translates to. */
  triton: TritonClient;
  /** Counts `usage` tokens (the pipeline's tokenizer). */
  tokenizer: NativeTokenizer;
  /** Default 127.0.0.1; 0.0.0.0 to serve other machines. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Each request as it ends (the CLI's log line). */
  onRequest?: (line: string) => void;
}

export interface OpenAiServer {
  /** The API base, `http://host:port/v1`. */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

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

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => fail(res, asApiError(error)));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
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
    const request = parseRequest(kind, await readJson(req));
    const config = await configOf(request.model);
    await (request.stream ? streamed(request, config, res) : unary(request, config, res));
  }

  async function unary(request: ParsedRequest, config: ModelConfig, res: ServerResponse): Promise<void> {
    const promptTokens = options.tokenizer.count(request.prompt);
    const answer = await sendPrompt(options.triton, {
      model: request.model,
      config,
      text: request.prompt,
      chat: request.chat,
      extra: request.sampling,
      maxTokens: request.maxTokens,
      stream: false,
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

  async function streamed(request: ParsedRequest, config: ModelConfig, res: ServerResponse): Promise<void> {
    const promptTokens = options.tokenizer.count(request.prompt);
    const h = head(request);
    // A client that hangs up is not cancelled at Triton (concurrent stream cancellations crash
    // Triton 2.51, see TRITON.md): the answer runs to its end and its chunks are dropped.
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
        onText: (text) => {
          start();
          send(chunk(request.kind, h, { text, ...nulls }));
        },
      });
    } catch (error) {
      if (!started) throw error;
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
  if (res.headersSent) {
    res.end();
    return;
  }
  json(res, error.status, error.body());
}

function json(res: ServerResponse, code: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new ApiError(413, `the request body is over ${MAX_BODY_BYTES / 1024 / 1024} MB`);
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new ApiError(400, 'the request body is not JSON');
  }
}
