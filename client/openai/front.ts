/**
 * The OpenAI front's state and routes: one `OpenAiFront` per server holds the limits, the request
 * gate, the API key, the cancellation pacer and the model configs; `handle` answers one HTTP request.
 * Each request is checked (key, body size, concurrency, body, prompt) before anything reaches Triton.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TritonClient } from '../grpc/client.js';
import type { CancelPacer } from '../grpc/cancelPacer.js';
import type { ModelConfig } from '../grpc/types.js';
import type { ChatRenderer } from '../chat/chatRenderer.js';
import { ChatRenderError } from '../chat/renderChat.js';
import { stepRenderRequest } from '../chat/stepRender.js';
import { MESSAGES, promptInputs } from '../prompt.js';
import type { NativeTokenizer } from '../tokenizer/nativeTokenizer.js';
import { answerStreamed, answerUnary, type Answerer } from './answer.js';
import { authorized, digest, fail, json, readJson, tooLarge } from './http.js';
import { ApiError, parseRequest, type Kind, type ParsedRequest, type RequestLimits } from './protocol.js';
import { RequestGate } from './requestGate.js';
import { asApiError } from './tritonErrors.js';

/** The limits every request is held to (see `OpenAiServerOptions`). */
export interface FrontLimits extends RequestLimits {
  maxBodyBytes: number;
  maxPromptTokens?: number;
  maxConcurrent: number;
  maxQueued: number;
}

export interface FrontParts {
  triton: TritonClient;
  tokenizer: NativeTokenizer;
  chatRenderer?: ChatRenderer;
  onRequest?: (line: string) => void;
  apiKey?: string;
  limits: FrontLimits;
  cancellations: CancelPacer;
}

const COMPLETION_ROUTES: Record<string, Kind> = {
  '/v1/completions': 'completions',
  '/v1/chat/completions': 'chat',
};

export class OpenAiFront implements Answerer {
  readonly triton: TritonClient;
  readonly tokenizer: NativeTokenizer;
  readonly onRequest?: (line: string) => void;
  private readonly chatRenderer?: ChatRenderer;
  private readonly limits: FrontLimits;
  private readonly gate: RequestGate;
  private readonly cancellations: CancelPacer;
  private readonly key?: Buffer;
  private readonly configs = new Map<string, Promise<ModelConfig>>();

  constructor(parts: FrontParts) {
    this.triton = parts.triton;
    this.tokenizer = parts.tokenizer;
    this.onRequest = parts.onRequest;
    this.chatRenderer = parts.chatRenderer;
    this.limits = parts.limits;
    this.gate = new RequestGate(parts.limits.maxConcurrent, parts.limits.maxQueued);
    this.cancellations = parts.cancellations;
    this.key = parts.apiKey !== undefined ? digest(parts.apiKey) : undefined;
  }

  /** One HTTP request, answered; its failure is its answer, never the process's end. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    this.gated(req, res).catch((error: unknown) => fail(res, asApiError(error)));
  }

  /** The checks that come before the body is read: the key, the declared size, a place in the gate. */
  private async gated(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.key !== undefined && !authorized(req, this.key)) {
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
    if (declared > this.limits.maxBodyBytes) throw tooLarge(this.limits.maxBodyBytes);
    // A client gone while its request waits takes its place back; one gone while it runs has its
    // request cancelled at Triton (paced: see CancelPacer).
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const release = await this.gate.enter(gone.signal);
    try {
      await this.route(req, res, this.cancellations.paced(gone.signal));
    } finally {
      release();
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') return this.models(res);
    const kind = Object.hasOwn(COMPLETION_ROUTES, path) ? COMPLETION_ROUTES[path] : undefined;
    if (!kind)
      throw new ApiError(
        404,
        `no route ${req.method} ${path}: the front serves /v1/completions, /v1/chat/completions and /v1/models`,
        'not_found_error',
      );
    if (req.method !== 'POST') throw new ApiError(405, `${path} takes POST`);
    return this.complete(kind, req, res, gone);
  }

  /** `GET /v1/models`: the models Triton has ready. */
  private async models(res: ServerResponse): Promise<void> {
    const models = await this.triton.repositoryIndex({ readyOnly: true });
    json(res, 200, {
      object: 'list',
      data: models.map((m) => ({ id: m.name, object: 'model', created: 0, owned_by: 'triton' })),
    });
  }

  /** `POST /v1/completions` and `/v1/chat/completions`. */
  private async complete(kind: Kind, req: IncomingMessage, res: ServerResponse, gone: AbortSignal) {
    const request = parseRequest(kind, await readJson(req, this.limits.maxBodyBytes), this.limits);
    const config = await this.configOf(request.model);
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
    const promptTokens = this.countPrompt(request, config);
    // Settled later (awaited, or the request failed first): never an unhandled rejection.
    promptTokens.catch(() => undefined);
    if (this.limits.maxPromptTokens !== undefined) await promptTokens;
    const answer = request.stream ? answerStreamed : answerUnary;
    await answer(this, { request, config, res, promptTokens, gone });
  }

  private configOf(model: string): Promise<ModelConfig> {
    let config = this.configs.get(model);
    if (!config) {
      config = this.triton.modelConfig(model);
      this.configs.set(model, config);
      // A model that was missing (or failed) is looked up again next time: it may be deployed by then.
      config.catch(() => this.configs.delete(model));
    }
    return config;
  }

  /** The prompt's tokens; over `maxPromptTokens` a 400 that says by how much. */
  private async countPrompt(request: ParsedRequest, config: ModelConfig): Promise<number> {
    const tokens = await this.tokenizer.count(await this.promptText(request, config));
    const max = this.limits.maxPromptTokens;
    if (max !== undefined && tokens > max) {
      throw new ApiError(
        400,
        `the prompt is ${tokens} tokens, over this server's limit of ${max} ` +
          '(openai-serve --max-prompt-tokens): shorten it',
        'invalid_request_error',
        request.kind === 'chat' ? 'messages' : 'prompt',
        'context_length_exceeded',
      );
    }
    return tokens;
  }

  /** The text the model's ids come from: a conversation as its tokenize step renders it, else the prompt. */
  private async promptText(request: ParsedRequest, config: ModelConfig): Promise<string> {
    const renderer = this.chatRenderer;
    if (!request.chat || !renderer || !config.input.some((i) => i.name === MESSAGES)) return request.prompt;
    try {
      return await renderer.render(stepRenderRequest(request.chat));
    } catch (error) {
      // The step renders the same template: its own error (a raise_exception) answers the request.
      if (error instanceof ChatRenderError) return request.prompt;
      throw error;
    }
  }
}
