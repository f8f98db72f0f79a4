/** Triton's HTTP/REST endpoints: `v2/models/M/infer` (KServe v2 JSON), `generate` and `generate_stream` (SSE). */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { InferInput } from '../grpc/client.js';
import { decodeBytesTensor, decodeNumericTensor } from '../grpc/tensors.js';
import type { ModelConfig, ModelStatistics } from '../grpc/types.js';
import { MAX_TOKENS, promptInputs, STREAM, TEXT_INPUT, TEXT_OUTPUT, type PromptResult } from '../prompt.js';
import { EndpointError, withDecoupledHint } from './errors.js';
import { HttpChannel, httpUrl } from './http.js';
import { session, whole } from './result.js';
import type { PromptRequest, PromptSession, PromptTransport, SessionOptions } from './types.js';

export interface TritonHttpOptions {
  headers?: Record<string, string>;
  /** Deadline for config and statistics calls; default 30 s. */
  timeoutMs?: number;
}

export class TritonHttpTransport implements PromptTransport {
  readonly url: string;
  private readonly http: HttpChannel;
  private readonly controlTimeoutMs: number;

  constructor(
    readonly endpoint: 'http-infer' | 'generate',
    url: string,
    options: TritonHttpOptions = {},
  ) {
    this.url = httpUrl(url);
    this.http = new HttpChannel(this.url, options.headers);
    this.controlTimeoutMs = options.timeoutMs ?? 30_000;
  }

  modelConfig(model: string): Promise<ModelConfig> {
    return this.http.getJson<ModelConfig>(`/v2/models/${encodeURIComponent(model)}/config`, {
      what: `the config of '${model}'`,
      timeoutMs: this.controlTimeoutMs,
    });
  }

  async statistics(): Promise<ModelStatistics[] | undefined> {
    try {
      const body = await this.http.getJson<{ model_stats?: ModelStatistics[] }>('/v2/models/stats', {
        what: 'statistics',
        timeoutMs: this.controlTimeoutMs,
      });
      return body.model_stats;
    } catch {
      return undefined;
    }
  }

  async prepare(model: string, options: SessionOptions): Promise<PromptSession> {
    const config = await this.modelConfig(model);
    // Checks the model has the prompt interface (text_input / max_tokens / text_output), with its own errors.
    promptInputs(config, { text: '', maxTokens: 1, stream: options.stream });
    const path = `/v2/models/${encodeURIComponent(model)}`;
    if (this.endpoint === 'http-infer') {
      if (options.stream) {
        throw new Error(
          'HTTP infer answers in one response: leave out --stream, or use --endpoint generate (generate_stream)',
        );
      }
      return session((request) => this.infer(`${path}/infer`, config, request, options.timeoutMs));
    }
    const inputs = new Set(config.input.map((i) => i.name));
    const body = (request: PromptRequest) => ({
      // A fresh request id, as the gRPC client sends: streaming detokenize steps key their
      // per-request decoder on it (without one, a character split over tokens comes out as U+FFFD).
      id: randomUUID(),
      [TEXT_INPUT]: request.text,
      ...(inputs.has(MAX_TOKENS) && request.maxTokens !== undefined
        ? { [MAX_TOKENS]: request.maxTokens }
        : {}),
      ...(inputs.has(STREAM) ? { [STREAM]: options.stream } : {}),
    });
    return session(
      options.stream
        ? (request) =>
            this.generateStream(`${path}/generate_stream`, body(request), request, options.timeoutMs)
        : (request) => this.generate(`${path}/generate`, body(request), request, options.timeoutMs),
    );
  }

  close(): void {
    this.http.close();
  }

  private async infer(
    path: string,
    config: ModelConfig,
    request: PromptRequest,
    timeoutMs?: number,
  ): Promise<PromptResult> {
    const body = {
      id: randomUUID(),
      inputs: promptInputs(config, { ...request, stream: false }).map(jsonTensor),
      outputs: [{ name: TEXT_OUTPUT }],
    };
    const call = { what: 'infer', timeoutMs };
    const start = performance.now();
    const response = await this.http
      .post(path, body, call)
      .catch((error: Error) => Promise.reject(withDecoupledHint(error)));
    const answer = (await this.http.readJson(response, call)) as {
      outputs?: { name: string; data?: unknown[] }[];
    };
    const output = answer.outputs?.find((o) => o.name === TEXT_OUTPUT);
    if (!output) throw new EndpointError(`infer at ${this.url} answered without '${TEXT_OUTPUT}'`, false);
    return whole((output.data ?? []).map(String).join(''), performance.now() - start, request);
  }

  private async generate(
    path: string,
    body: object,
    request: PromptRequest,
    timeoutMs?: number,
  ): Promise<PromptResult> {
    const call = { what: 'generate', timeoutMs };
    const start = performance.now();
    const response = await this.http.post(path, body, call);
    const answer = (await this.http.readJson(response, call)) as Record<string, unknown>;
    return whole(outputText(answer, 'generate', this.url), performance.now() - start, request);
  }

  private async generateStream(
    path: string,
    body: object,
    request: PromptRequest,
    timeoutMs?: number,
  ): Promise<PromptResult> {
    const call = { what: 'generate_stream', timeoutMs };
    const chunks: string[] = [];
    const chunkMs: number[] = [];
    let responses = 0;
    const start = performance.now();
    const response = await this.http.post(path, body, call);
    for await (const data of this.http.events(response, call)) {
      const event = JSON.parse(data) as Record<string, unknown>;
      // Triton reports an error inside the stream as an event: `data: {"error": "…"}`.
      if (typeof event.error === 'string')
        throw new EndpointError(`generate_stream failed: ${event.error}`, false);
      responses++;
      const chunk = outputText(event, 'generate_stream', this.url);
      if (chunk === '') continue;
      chunkMs.push(performance.now() - start);
      chunks.push(chunk);
      request.onText?.(chunk);
    }
    const latencyMs = performance.now() - start;
    return { text: chunks.join(''), chunks, chunkMs, responses, ttftMs: chunkMs[0] ?? latencyMs, latencyMs };
  }
}

/** `text_output` of a generate answer: a string, or (batched models) an array of strings. */
function outputText(answer: Record<string, unknown>, what: string, url: string): string {
  const output = answer[TEXT_OUTPUT];
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(String).join('');
  if (typeof answer.error === 'string') throw new EndpointError(`${what} failed: ${answer.error}`, false);
  throw new EndpointError(`${what} at ${url} answered without '${TEXT_OUTPUT}'`, false);
}

/** A request tensor in KServe v2 JSON: values, not bytes. */
function jsonTensor(input: InferInput): { name: string; datatype: string; shape: number[]; data: unknown[] } {
  const data =
    input.datatype === 'BYTES'
      ? decodeBytesTensor(input.raw).map((b) => b.toString('utf8'))
      : input.datatype === 'BOOL'
        ? decodeNumericTensor(input.datatype, input.raw).map(Boolean)
        : decodeNumericTensor(input.datatype, input.raw);
  return { name: input.name, datatype: input.datatype, shape: input.shape, data };
}
