/**
 * A completion's answer once the request is checked: one JSON object, or Server-Sent Events as
 * the text arrives. Usage counts come from the pipeline's tokenizer; each answer ends with the
 * request's log line.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { TritonClient } from '../grpc/client.js';
import type { ModelConfig } from '../grpc/types.js';
import { sendPrompt } from '../prompt.js';
import type { NativeTokenizer } from '../tokenizer/nativeTokenizer.js';
import { json } from './http.js';
import { chunk, completion, finishReason, usage, type ParsedRequest } from './protocol.js';
import { asApiError } from './tritonErrors.js';

/** What every answer uses of the front. */
export interface Answerer {
  triton: TritonClient;
  tokenizer: NativeTokenizer;
  onRequest?: (line: string) => void;
}

/** One checked request on its way to Triton and back. */
export interface Completion {
  request: ParsedRequest;
  config: ModelConfig;
  res: ServerResponse;
  /** Counted while the request runs; awaited only for `usage` and the log. */
  promptTokens: Promise<number>;
  /** Aborted when the client hangs up: the request is cancelled at Triton (its model step stops). */
  gone: AbortSignal;
}

export async function answerUnary(front: Answerer, c: Completion): Promise<void> {
  const { request } = c;
  const answer = await send(front, c);
  const completionTokens = await front.tokenizer.count(answer.text);
  const counted = usage(await c.promptTokens, completionTokens);
  const reason = finishReason(completionTokens, request.maxTokens);
  json(c.res, 200, completion(request.kind, head(request), answer.text, reason, counted));
  front.onRequest?.(
    `${request.kind} ${request.model}: ${counted.prompt_tokens} → ${completionTokens} tokens`,
  );
}

export async function answerStreamed(front: Answerer, c: Completion): Promise<void> {
  const { request } = c;
  const h = head(request);
  const events = new EventStream(c.res, request, h);
  let answer;
  try {
    answer = await send(front, c, (text) => {
      events.start();
      events.send(chunk(request.kind, h, { text, ...events.nulls }));
    });
  } catch (error) {
    if (!events.started || c.gone.aborted) throw error;
    // Headers are gone: the error travels as an event, as OpenAI-compatible servers send it.
    events.send(asApiError(error).body());
    events.end();
    return;
  }
  events.start();
  const completionTokens = await front.tokenizer.count(answer.text);
  events.send(
    chunk(request.kind, h, { finish: finishReason(completionTokens, request.maxTokens), ...events.nulls }),
  );
  if (request.includeUsage)
    events.send(chunk(request.kind, h, { usage: usage(await c.promptTokens, completionTokens) }));
  events.end();
  front.onRequest?.(
    `${request.kind} ${request.model} (stream): ${await c.promptTokens} → ${completionTokens} tokens`,
  );
}

/** The request to Triton; streamed when `onText` takes the pieces. */
function send(front: Answerer, c: Completion, onText?: (text: string) => void) {
  const { request } = c;
  return sendPrompt(front.triton, {
    model: request.model,
    config: c.config,
    text: request.prompt,
    chat: request.chat,
    extra: request.sampling,
    maxTokens: request.maxTokens,
    stream: onText !== undefined,
    signal: c.gone,
    onText,
  });
}

type Head = ReturnType<typeof head>;

function head(request: ParsedRequest) {
  return {
    id: `${request.kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
  };
}

/** One answer's Server-Sent Events: headers on the first piece (a chat's role chunk with them), `[DONE]` at the end. */
class EventStream {
  started = false;
  /** With `include_usage`, every chunk before the last carries `usage: null`, as OpenAI's do. */
  readonly nulls: { usage?: null };

  constructor(
    private readonly res: ServerResponse,
    private readonly request: ParsedRequest,
    private readonly h: Head,
  ) {
    this.nulls = request.includeUsage ? { usage: null } : {};
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    if (this.request.kind === 'chat') this.send(chunk('chat', this.h, { role: true, ...this.nulls }));
  }

  send(data: object | string): void {
    if (!this.res.writableEnded && !this.res.destroyed) {
      this.res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    }
  }

  end(): void {
    this.send('[DONE]');
    this.res.end();
  }
}
