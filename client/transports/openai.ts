/** OpenAI-compatible servers: `/v1/completions` and `/v1/chat/completions`, streamed (SSE) or not. */
import { performance } from 'node:perf_hooks';
import type { PromptResult } from '../prompt.js';
import { EndpointError } from './errors.js';
import { HttpChannel, httpUrl } from './http.js';
import { session, whole } from './result.js';
import type { PromptRequest, PromptSession, PromptTransport, SessionOptions } from './types.js';

export interface OpenAiOptions {
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer …` (servers that want a key). */
  apiKey?: string;
}

interface Choice {
  text?: string;
  delta?: { content?: string | null };
  message?: { content?: string | null };
  finish_reason?: string | null;
}
interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}
interface Answer {
  choices?: Choice[];
  usage?: Usage | null;
  error?: { message?: string };
}

export class OpenAiTransport implements PromptTransport {
  readonly url: string;
  private readonly http: HttpChannel;

  constructor(
    readonly endpoint: 'completions' | 'chat',
    /** The API base, `http://host:port/v1` (as OpenAI's SDKs take it); `/v1` is added when missing. */
    url: string,
    options: OpenAiOptions = {},
  ) {
    const base = httpUrl(url);
    this.url = /\/v\d+$/.test(base) ? base : `${base}/v1`;
    const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    this.http = new HttpChannel(this.url, { ...auth, ...options.headers });
  }

  prepare(model: string, options: SessionOptions): Promise<PromptSession> {
    const chat = this.endpoint === 'chat';
    const path = chat ? '/chat/completions' : '/completions';
    const body = (request: PromptRequest) => ({
      model,
      ...(chat ? { messages: [{ role: 'user', content: request.text }] } : { prompt: request.text }),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(options.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
    return Promise.resolve(
      session(
        options.stream
          ? (request) => this.streamed(path, body(request), request, options.timeoutMs)
          : (request) => this.unary(path, body(request), request, options.timeoutMs),
      ),
    );
  }

  /** OpenAI-compatible servers have no Triton statistics. */
  statistics(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  close(): void {
    this.http.close();
  }

  private what(stream: boolean): string {
    return `${this.endpoint === 'chat' ? 'chat/completions' : 'completions'}${stream ? ' (stream)' : ''}`;
  }

  private async unary(
    path: string,
    body: object,
    request: PromptRequest,
    timeoutMs?: number,
  ): Promise<PromptResult> {
    const call = { what: this.what(false), timeoutMs };
    const start = performance.now();
    const response = await this.http.post(path, body, call);
    const answer = (await this.http.readJson(response, call)) as Answer;
    const latencyMs = performance.now() - start;
    const choice = answer.choices?.[0];
    if (!choice) throw new EndpointError(`${call.what} at ${this.url} answered without choices`, false);
    const text = choice.text ?? choice.message?.content ?? '';
    return { ...whole(text, latencyMs, request), usage: usage(answer.usage) };
  }

  private async streamed(
    path: string,
    body: object,
    request: PromptRequest,
    timeoutMs?: number,
  ): Promise<PromptResult> {
    const call = { what: this.what(true), timeoutMs };
    const chunks: string[] = [];
    const chunkMs: number[] = [];
    let responses = 0;
    let done = false;
    let counted: PromptResult['usage'];
    const start = performance.now();
    const response = await this.http.post(path, body, call);
    for await (const data of this.http.events(response, call)) {
      if (data === '[DONE]') {
        done = true;
        break;
      }
      const event = JSON.parse(data) as Answer;
      if (event.error)
        throw new EndpointError(
          `${call.what} failed: ${event.error.message ?? JSON.stringify(event.error)}`,
          false,
        );
      responses++;
      if (event.usage) counted = usage(event.usage);
      const choice = event.choices?.[0];
      const chunk = choice?.text ?? choice?.delta?.content ?? '';
      if (chunk === '') continue;
      chunkMs.push(performance.now() - start);
      chunks.push(chunk);
      request.onText?.(chunk);
    }
    const latencyMs = performance.now() - start;
    // OpenAI ends every stream with `data: [DONE]`; a stream cut short must not pass as a short answer.
    if (!done) throw new EndpointError(`${call.what} at ${this.url} ended without 'data: [DONE]'`, false);
    return {
      text: chunks.join(''),
      chunks,
      chunkMs,
      responses,
      ttftMs: chunkMs[0] ?? latencyMs,
      latencyMs,
      usage: counted,
    };
  }
}

function usage(u: Usage | null | undefined): PromptResult['usage'] {
  if (!u) return undefined;
  return { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens };
}
