/**
 * `perf` through every endpoint (`--endpoint`), against the real tritonserver and one sim-llm latency
 * model: TTFT, ITL and request latency must come out the same whichever protocol carried the
 * request, within 10% (or 15 ms) of the configured truth (decode 80 ms per token; prompt tokens counted by
 * Hugging Face's own `tokenizers`, not by the code under test). Unary endpoints have no TTFT: their
 * one answer is the whole text. The OpenAI endpoints are measured through the project's own
 * OpenAI-compatible front (`openai-serve`) in front of the same server: no registry package ships an
 * OpenAI-compatible server with a model that runs here (vLLM, llama-cpp-python, node-llama-cpp
 * all need weights from a model hub). OpenAI's own SDK checks the front's shapes.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { syntheticInputs, withOutputLengths } from '../../client/perf/inputs/synthetic.js';
import { type OpenAiServer } from '../../client/openai/server.js';
import { freePort, type LocalServer } from '../../client/server/localServer.js';
import { NativeTokenizer } from '../../client/tokenizer/nativeTokenizer.js';
import { createTransport, type Endpoint } from '../../client/transports/index.js';
import {
  BIN,
  cli,
  DECODE_US_PER_STEP,
  GPT2,
  hf,
  hfCount,
  MAX_TOKENS,
  measure,
  PREFILL_US_PER_TOKEN,
  PROMPT,
  ROOT,
  usePerfEndpoints,
  within,
} from './perf-endpoints-fixture.js';

const env = usePerfEndpoints();
let server: LocalServer;
let grpc: TritonClient;
let models: { stream: string; plain: string };
let promptTokens: number;
let tokenizer: NativeTokenizer;
let front: OpenAiServer;
beforeAll(() => void ({ server, grpc, models, promptTokens, tokenizer, front } = env));

const prefillMs = () => (PREFILL_US_PER_TOKEN * promptTokens) / 1000;
/** The emoji prompt's prefill (4 tokens). */
const prefillMs4 = () => (PREFILL_US_PER_TOKEN * 4) / 1000;
const latencyTruth = () => prefillMs() + (MAX_TOKENS * DECODE_US_PER_STEP) / 1000;

describe("Triton's endpoints measure the same latency model the same way", () => {
  const streamed: { endpoint: Endpoint; url: () => string }[] = [
    { endpoint: 'grpc-stream', url: () => server.grpcUrl },
    { endpoint: 'generate', url: () => server.httpUrl },
    { endpoint: 'completions', url: () => front.url },
    { endpoint: 'chat', url: () => front.url },
  ];
  for (const { endpoint, url } of streamed) {
    it(`${endpoint} streamed: TTFT, ITL, tokens and the server's breakdown`, async () => {
      const report = await measure(createTransport(endpoint, url()), models.stream, true);
      const m = report.metrics;
      expect(report.endpoint).toBe(endpoint);
      expect(report.engine).toBe(endpoint.startsWith('grpc') ? 'native' : 'node');
      expect(m.error_request_count!.avg, report.results.errorMessages.join('\n')).toBe(0);
      // One token per streamed chunk from this pipeline.
      expect(m.output_sequence_length!.avg).toBe(MAX_TOKENS);
      within(m.time_to_first_token!.p50!, prefillMs() + DECODE_US_PER_STEP / 1000);
      within(m.inter_token_latency!.p50!, DECODE_US_PER_STEP / 1000);
      within(m.request_latency!.p50!, latencyTruth());
      // Statistics come over the same protocol: the ensemble and its steps, 6 measured requests each.
      // An OpenAI-compatible server has none.
      const sim = report.serverBreakdown.find((s) => s.model === 'sim_llm_stream');
      if (endpoint === 'completions' || endpoint === 'chat') expect(report.serverBreakdown).toEqual([]);
      else expect(sim?.requests).toBe(6);
    }, 120_000);
  }

  // gRPC: the native engine (the CLI's default) and the node engine (the editor's).
  const unary: { endpoint: Endpoint; url: () => string; engine?: 'node' }[] = [
    { endpoint: 'grpc-stream', url: () => server.grpcUrl },
    { endpoint: 'grpc-stream', url: () => server.grpcUrl, engine: 'node' },
    { endpoint: 'grpc-infer', url: () => server.grpcUrl },
    { endpoint: 'grpc-infer', url: () => server.grpcUrl, engine: 'node' },
    { endpoint: 'http-infer', url: () => server.httpUrl },
    { endpoint: 'generate', url: () => server.httpUrl },
    { endpoint: 'completions', url: () => front.url },
    { endpoint: 'chat', url: () => front.url },
  ];
  for (const { endpoint, url, engine } of unary) {
    it(`${endpoint} unary${engine ? `, ${engine} engine` : ''}: request latency and the answer's text`, async () => {
      const transport = createTransport(endpoint, url());
      const openai = endpoint === 'completions' || endpoint === 'chat';
      const model = openai ? models.stream : models.plain;
      const session = await transport.prepare(model, { stream: false });
      const answer = await session.send({ text: PROMPT, maxTokens: MAX_TOKENS });
      session.close();
      // sim-llm answers with the prompt's tokens in turn.
      expect(answer.text).toBe(
        await hf.decode(
          (await hf.encode(PROMPT, null, { addSpecialTokens: false })).getIds().slice(0, MAX_TOKENS),
          true,
        ),
      );
      const report = await measure(transport, model, false, engine);
      expect(report.metrics.error_request_count!.avg, report.results.errorMessages.join('\n')).toBe(0);
      expect(report.metrics.time_to_first_token).toBeUndefined();
      within(report.metrics.request_latency!.p50!, latencyTruth());
      if (!openai) expect(report.serverBreakdown.find((s) => s.model === 'sim_llm_plain')?.requests).toBe(6);
    }, 120_000);
  }
});

describe("tokens counted by the pipeline's native tokenizer", () => {
  it('synthetic prompts: every count agrees with Hugging Face, the lengths follow the mean and deviation, a seed repeats them', async () => {
    const spec = {
      inputTokens: { mean: 120, stddev: 20 },
      outputTokens: { mean: 12, stddev: 3 },
      count: 200,
      seed: 11,
    };
    const inputs = await syntheticInputs(tokenizer, spec);
    for (const input of inputs) expect(input.inputTokens, input.text).toBe(await hfCount(input.text));
    const stats = (xs: number[]) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return { mean, sd: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) };
    };
    // 200 draws: the sample mean is within ±3 standard errors (20/√200 ≈ 1.4), the deviation within 15%.
    const isl = stats(inputs.map((i) => i.inputTokens!));
    expect(Math.abs(isl.mean - 120)).toBeLessThan(4.3);
    expect(Math.abs(isl.sd - 20)).toBeLessThan(3);
    const osl = stats(inputs.map((i) => i.maxTokens!));
    expect(Math.abs(osl.mean - 12)).toBeLessThan(0.7);
    expect(Math.abs(osl.sd - 3)).toBeLessThan(0.5);
    expect(new Set(inputs.map((i) => i.text)).size).toBeGreaterThan(190);
    expect((await syntheticInputs(tokenizer, spec)).map((i) => i.text)).toEqual(inputs.map((i) => i.text));
    expect((await syntheticInputs(tokenizer, { ...spec, seed: 12 }))[0]!.text).not.toBe(inputs[0]!.text);
    // A fixed prompt with drawn output lengths.
    const fixed = withOutputLengths([{ text: PROMPT }], { mean: 5 }, { count: 3 });
    expect(fixed).toEqual([1, 2, 3].map(() => ({ text: PROMPT, maxTokens: 5 })));
  }, 60_000);

  it.each([
    ['generate', 'node'],
    ['grpc-stream', 'native'],
  ] as const)(
    'several tokens in one streamed chunk (%s, %s engine): output tokens are counted, not chunks, and ITL divides by them',
    async (endpoint, engine) => {
      // GPT-2 splits 🙂 into two byte tokens; sim-llm answers with the prompt's tokens, and the
      // streaming detokenizer sends 🙂 once both have arrived: 2 chunks carrying 4 tokens.
      const prompt = '🙂🙂';
      const tokens = await hfCount(prompt);
      expect(tokens).toBe(4);
      const transport = createTransport(endpoint, endpoint === 'generate' ? server.httpUrl : server.grpcUrl);
      const report = await runLatencyTest(transport, {
        engine,
        model: models.stream,
        prompt,
        maxTokens: tokens,
        stream: true,
        tokenizer,
        keepRecords: true,
        load: { mode: 'concurrency', concurrency: 1, requests: 3, warmupRequests: 0 },
      }).finally(() => transport.close());
      const m = report.metrics;
      expect(m.error_request_count!.avg, report.results.errorMessages.join('\n')).toBe(0);
      expect(report.tokenizer).toBe(GPT2);
      expect(report.records!.map((r) => r.responseTokens)).toEqual([1, 2, 3].map(() => [2, 2]));
      expect(m.output_sequence_length!.avg).toBe(tokens);
      expect(m.input_sequence_length!.avg).toBe(tokens);
      // The first chunk waits for 2 decode steps; (latency − TTFT) spans the other 2, over 3 gaps.
      within(m.time_to_first_token!.p50!, prefillMs4() + (2 * DECODE_US_PER_STEP) / 1000);
      within(m.inter_token_latency!.p50!, (2 * DECODE_US_PER_STEP) / 1000 / 3);
    },
    60_000,
  );

  it("server-reported counts (OpenAI's usage) when asked and no tokenizer is given", async () => {
    for (const stream of [true, false]) {
      const transport = createTransport('chat', front.url);
      const report = await runLatencyTest(transport, {
        model: models.stream,
        prompt: PROMPT,
        maxTokens: 3,
        stream,
        serverTokenCounts: true,
        load: { mode: 'concurrency', concurrency: 1, requests: 2, warmupRequests: 0 },
      }).finally(() => transport.close());
      expect(report.metrics.output_sequence_length!.avg).toBe(3);
      expect(report.metrics.input_sequence_length!.avg).toBe(promptTokens);
    }
  }, 60_000);

  it('unary answers: one chunk, all its tokens; the prompt is never output', async () => {
    const transport = createTransport('http-infer', server.httpUrl);
    const report = await runLatencyTest(transport, {
      model: models.plain,
      prompt: PROMPT,
      maxTokens: 3,
      tokenizer,
      load: { mode: 'concurrency', concurrency: 1, requests: 2, warmupRequests: 0 },
    }).finally(() => transport.close());
    expect(report.metrics.output_sequence_length!.avg).toBe(3);
    expect(report.metrics.input_sequence_length!.avg).toBe(promptTokens);
    expect(report.metrics.output_token_throughput!.avg).toBeGreaterThan(0);
  }, 60_000);
});

describe("pending requests from Triton's Prometheus metrics", () => {
  it('six in flight on a model with two instances and no batching: four wait, and the breakdown says so', async () => {
    const report = await runLatencyTest(grpc, {
      model: models.stream,
      prompt: PROMPT,
      maxTokens: MAX_TOKENS,
      stream: true,
      metricsUrl: server.metricsUrl,
      load: { mode: 'concurrency', concurrency: 6, requests: 18, warmupRequests: 0 },
    });
    expect(report.metricsError).toBeUndefined();
    const sim = report.serverBreakdown.find((s) => s.model === 'sim_llm_stream')!;
    expect(sim.pendingRequests!.max).toBe(4);
    // Between requests a slot is briefly free; most samples see all four waiting.
    expect(sim.pendingRequests!.avg).toBeGreaterThan(2);
    expect(sim.pendingRequests!.avg).toBeLessThanOrEqual(4);
    // The tokenize step never has a queue at this load.
    expect(
      report.serverBreakdown.find((s) => s.model === 'preprocessing_stream')!.pendingRequests!.max,
    ).toBeLessThanOrEqual(1);
  }, 60_000);

  it('a metrics URL that does not answer: the run goes on and the report says why the counts are missing', async () => {
    const port = await freePort();
    const report = await runLatencyTest(grpc, {
      model: models.plain,
      prompt: PROMPT,
      maxTokens: 1,
      metricsUrl: `http://127.0.0.1:${port}/metrics`,
      load: { mode: 'concurrency', concurrency: 1, requests: 2, warmupRequests: 0 },
    });
    expect(report.results.errors).toBe(0);
    expect(report.metricsError).toMatch(/cannot read Triton's metrics at http:\/\/127\.0\.0\.1:\d+\/metrics/);
    expect(report.serverBreakdown.every((s) => s.pendingRequests === undefined)).toBe(true);
  }, 60_000);
});

describe("the OpenAI-compatible front, through OpenAI's own SDK", () => {
  const sdk = () => new OpenAI({ baseURL: front.url, apiKey: 'not-checked', maxRetries: 0 });

  it('completions: the answer, usage counted by the native tokenizer, finish_reason', async () => {
    const answer = await sdk().completions.create({ model: models.stream, prompt: PROMPT, max_tokens: 3 });
    const text = answer.choices[0]!.text;
    expect(text).toBe(
      await hf.decode(
        (await hf.encode(PROMPT, null, { addSpecialTokens: false })).getIds().slice(0, 3),
        true,
      ),
    );
    expect(answer.object).toBe('text_completion');
    expect(answer.choices[0]!.finish_reason).toBe('length');
    expect(answer.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: await hfCount(text),
      total_tokens: promptTokens + (await hfCount(text)),
    });
  }, 60_000);

  it('chat, streamed: role first, one delta per token, finish_reason, usage chunk, [DONE]', async () => {
    const stream = await sdk().chat.completions.create({
      model: models.stream,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      const content = chunk.choices[0]?.delta.content;
      if (content) deltas.push(content);
    }
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(deltas).toHaveLength(3);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('length');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: promptTokens,
      completion_tokens: 3,
      total_tokens: promptTokens + 3,
    });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  }, 60_000);

  it("errors in OpenAI's shape: unknown model 404, bad request 400, unknown route 404", async () => {
    const unknown = await sdk()
      .completions.create({ model: 'no_such_model', prompt: 'x' })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    const bad = await sdk()
      .chat.completions.create({ model: models.stream, messages: [], max_tokens: 2 })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as Error).message).toMatch(/'messages' must be a non-empty array/);
    const route = await fetch(`${front.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(route.status).toBe(404);
    expect(((await route.json()) as { error: { message: string } }).error.message).toMatch(
      /serves \/v1\/completions/,
    );
  }, 60_000);

  it('a client that goes away mid-stream: the front keeps serving the next requests', async () => {
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const response = await fetch(`${front.url}/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: models.stream, prompt: PROMPT, max_tokens: 6, stream: true }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read(); // the first chunk, then hang up
      controller.abort();
    }
    const answer = await sdk().completions.create({ model: models.stream, prompt: PROMPT, max_tokens: 2 });
    expect(answer.usage!.completion_tokens).toBe(2);
  }, 60_000);

  it('a stream that ends without data: [DONE] is a failed request, not a short answer', async () => {
    const cut = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"choices":[{"index":0,"text":"half"}]}\n\n');
    });
    await new Promise<void>((done) => cut.listen(0, '127.0.0.1', done));
    const port = (cut.address() as { port: number }).port;
    const transport = createTransport('completions', `127.0.0.1:${port}`);
    try {
      const session = await transport.prepare('m', { stream: true });
      await expect(session.send({ text: 'x' })).rejects.toThrow(/ended without 'data: \[DONE\]'/);
    } finally {
      transport.close();
      cut.close();
    }
  });
});

describe('the CLI: openai-serve and prompt --endpoint', () => {
  it('openai-serve answers prompt --endpoint chat --stream, and stops on Ctrl-C with exit 0', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'openai-serve', '--url', server.grpcUrl, '--tokenizer', GPT2, '--port', '0', '--json'],
      {
        cwd: ROOT,
      },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('close', done));
    try {
      const started = Date.now();
      while (!stdout.includes('}') && Date.now() - started < 30_000)
        await new Promise((r) => setTimeout(r, 50));
      const { url } = JSON.parse(stdout) as { url: string };
      const run = await cli([
        'prompt',
        '--endpoint',
        'chat',
        '--url',
        url,
        '--model',
        models.stream,
        '--stream',
        '--max-tokens',
        '3',
        PROMPT,
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(
        await hf.decode(
          (await hf.encode(PROMPT, null, { addSpecialTokens: false })).getIds().slice(0, 3),
          true,
        ),
      );
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
