/**
 * The native orchestrator on the real tritonserver: a streaming pipeline (Llama-2 tokenizer →
 * decoupled sim-llm → detokenize) generated with its default serving, so clients call one native
 * model that owns each request. Expected answers come from Hugging Face's `tokenizers` and
 * sim-llm's documented behaviour (the i-th generated token is the i-th prompt token, cyclically),
 * never from the code under test. Over gRPC ModelStreamInfer and HTTP generate / generate_stream:
 * every streamed answer, concatenated, equals the non-streamed one, with or without a request id,
 * ids reused one after another and at once, after a cancelled stream, across multi-byte characters
 * and word-start spaces, and with stop sequences split across tokens, which cancel the model.
 *
 * The pinned server (Triton 2.51) crashes under many concurrent gRPC stream cancellations
 * (docs/PIPELINE.md): these tests cancel one stream at a time, over gRPC and over HTTP (a client
 * closing its generate_stream connection).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { bytesInput, numericInput, TritonClient, type InferInput } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { abandonGenerateStream } from './sse.js';

const ROOT = resolve(__dirname, '../..');
const MODEL = 'llama_stream';
const LLAMA = resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!;
const hf = Tokenizer.fromFile(LLAMA);

/** sim-llm with 2 ms per generated token behind the sim-llm presets, streaming when asked. */
function streamingPipeline(): Pipeline {
  const pipeline = JSON.parse(
    readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  ) as Pipeline;
  pipeline.name = MODEL;
  delete pipeline.$schema;
  const pre = pipeline.steps.find((s) => s.kind === 'tokenize')!;
  const post = pipeline.steps.find((s) => s.kind === 'detokenize')!;
  const sim = pipeline.steps.find((s) => s.kind === 'model')!;
  pre.tokenizer = 'llama-2';
  post.tokenizer = 'llama-2';
  pre.inputs = [
    { name: 'STOP_WORDS_DICT', dataType: 'STRING', dims: [-1], optional: true, role: 'stopWords' },
  ];
  sim.decoupled = true;
  sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
  sim.parameters = { prefill_us_per_token: 20, decode_us_per_step: 2000 };
  pipeline.inputs.push(
    { name: 'stream', dataType: 'BOOL', dims: [1], optional: true },
    { name: 'stop_words', dataType: 'STRING', dims: [-1], optional: true },
  );
  pipeline.wires.push(
    { from: 'stream', to: 'sim_llm.streaming' },
    { from: 'stop_words', to: 'preprocessing.STOP_WORDS_DICT' },
  );
  return pipeline;
}

/** The whole answer, decoded at once by Hugging Face: what every client must get. */
async function expected(prompt: string, maxTokens: number, stop?: string): Promise<string> {
  const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
  const text = await hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
  const at = stop ? text.indexOf(stop) : -1;
  return at >= 0 ? text.slice(0, at) : text;
}

const scratch = mkdtempSync(join(tmpdir(), 'ts-orchestrator-test-'));
const repo = join(scratch, 'repo');
let server: LocalServer;
let client: TritonClient;
let generatedModels: string[] = [];

beforeAll(async () => {
  const file = join(scratch, 'llama-stream.pipeline.json');
  writeFileSync(file, JSON.stringify(streamingPipeline()));
  const generated = generateRepository({ pipelinePath: file, outDir: repo });
  expect(generated.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  expect(generated.serving).toBe('orchestrator');
  generatedModels = generated.models.map((m) => m.name);
  await buildRepository(repo);
  server = await startLocalServer({ modelRepository: repo });
  client = new TritonClient(server.grpcUrl);
  const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
  expect(deployed.models.map((m) => [m.model, m.state])).toEqual([
    ['sim_llm', 'ready'],
    [MODEL, 'ready'],
  ]);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

interface Ask {
  prompt: string;
  maxTokens: number;
  stream: boolean;
  stop?: string[];
  id?: string;
  signal?: AbortSignal;
  onChunk?: (text: string) => void;
}

function inputs(a: Ask): InferInput[] {
  const list = [
    bytesInput('text_input', [1, 1], [a.prompt]),
    numericInput('max_tokens', 'INT32', [1, 1], [a.maxTokens]),
    numericInput('stream', 'BOOL', [1, 1], [a.stream]),
  ];
  if (a.stop) list.push(bytesInput('stop_words', [1, a.stop.length], a.stop));
  return list;
}

/** Over gRPC ModelStreamInfer; `id: ''` sends no id at all. */
async function grpc(a: Ask): Promise<string[]> {
  const chunks: string[] = [];
  for await (const r of client.streamInfer(MODEL, inputs(a), { id: a.id ?? '', signal: a.signal })) {
    const text = r.strings('text_output').join('');
    chunks.push(text);
    a.onChunk?.(text);
  }
  return chunks;
}

function httpBody(a: Ask): string {
  return JSON.stringify({
    ...(a.id !== undefined && { id: a.id }),
    text_input: a.prompt,
    max_tokens: a.maxTokens,
    stream: a.stream,
    ...(a.stop && { stop_words: a.stop }),
  });
}

async function httpGenerate(a: Ask): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.httpUrl}/v2/models/${MODEL}/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: httpBody(a),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Server-sent events of generate_stream: each `data:` line's text_output (or error). */
async function httpGenerateStream(a: Ask): Promise<{ status: number; chunks: string[]; errors: string[] }> {
  const res = await fetch(`${server.httpUrl}/v2/models/${MODEL}/generate_stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: httpBody(a),
  });
  const chunks: string[] = [];
  const errors: string[] = [];
  for (const line of (await res.text()).split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = JSON.parse(line.slice(5)) as { text_output?: string; error?: string };
    if (event.error !== undefined) errors.push(event.error);
    else if (event.text_output !== undefined) chunks.push(event.text_output);
  }
  return { status: res.status, chunks, errors };
}

/** sim-llm's requests and compute time so far. It reports a request when its Execute ends, and
 * runs one batch at a time: a request sent after another has finished reports both. */
async function simLlmWork(): Promise<{ requests: number; computeMs: number }> {
  const [stats] = await client.modelStatistics('sim_llm');
  return { requests: stats!.inference_count, computeMs: stats!.inference_stats.compute_infer.ns / 1e6 };
}

const EMOJI = 'Tiny 😀 café, naïve señor; wörld 🚀 ünïcödé.';

describe('the generated repository', () => {
  it('has the orchestrator under the pipeline name and the model step, not the tokenize/detokenize models', () => {
    expect(generatedModels).toEqual([MODEL, 'sim_llm']);
    expect(readdirSync(repo).sort()).toEqual([MODEL, 'sim_llm', 'triton-studio.manifest.json'].sort());
    const config = readFileSync(join(repo, MODEL, 'config.pbtxt'), 'utf8');
    expect(config).toMatch(/backend: "llama_stream"/);
    expect(config).toMatch(/decoupled: true/);
    expect(config).toMatch(/name: "text_input"/);
  });
});

describe('one request at a time, no request id', () => {
  it('answers a non-streaming gRPC request in one response, equal to the whole decode', async () => {
    const prompt = 'Hello world, the quick brown fox';
    const chunks = await grpc({ prompt, maxTokens: 12, stream: false });
    expect(chunks).toEqual([await expected(prompt, 12)]);
  });

  it('streams over gRPC: chunks concatenate to the non-streamed answer, with spaces and split characters whole', async () => {
    for (const [prompt, n] of [
      ['Hello world, the quick brown fox', 12],
      [EMOJI, 40],
    ] as const) {
      const chunks = await grpc({ prompt, maxTokens: n, stream: true });
      expect(chunks.join('')).toBe(await expected(prompt, n));
      expect(chunks.length).toBeGreaterThan(3);
      for (const c of chunks) expect(c).not.toContain('\uFFFD');
    }
  });

  it('answers HTTP generate and generate_stream alike, twice in a row with the same id', async () => {
    const want = await expected(EMOJI, 30);
    for (let i = 0; i < 2; i++) {
      const whole = await httpGenerate({ prompt: EMOJI, maxTokens: 30, stream: false, id: '1' });
      expect(whole.status).toBe(200);
      expect(whole.body.text_output).toBe(want);
      const streamed = await httpGenerateStream({ prompt: EMOJI, maxTokens: 30, stream: true, id: '1' });
      expect(streamed.errors).toEqual([]);
      expect(streamed.chunks.join('')).toBe(want);
      expect(streamed.chunks.length).toBeGreaterThan(3);
      const noId = await httpGenerateStream({ prompt: EMOJI, maxTokens: 30, stream: true });
      expect(noId.chunks.join('')).toBe(want);
    }
  });
});

describe('requests sharing an id', () => {
  it('keeps concurrent streams with the same id apart, over gRPC and HTTP', async () => {
    const prompts = ['Alpha beta gamma delta', EMOJI, 'One two three four five six', 'Zeta 😀 eta theta'];
    const answers = await Promise.all([
      ...prompts.map((prompt) => grpc({ prompt, maxTokens: 24, stream: true, id: 'same' })),
      ...prompts.map((prompt) =>
        httpGenerateStream({ prompt, maxTokens: 24, stream: true, id: 'same' }).then((r) => r.chunks),
      ),
    ]);
    const want = await Promise.all(prompts.map((p) => expected(p, 24)));
    expect(answers.map((chunks) => chunks.join(''))).toEqual([...want, ...want]);
  });
});

describe('cancellation', () => {
  it('a stream cancelled mid-answer leaves nothing behind: the next request with its id starts clean', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    await grpc({ prompt: EMOJI, maxTokens: 2, stream: true }); // earlier requests have reported
    const before = await simLlmWork();
    await expect(
      grpc({
        prompt: EMOJI,
        maxTokens: 400,
        stream: true,
        id: 'reused',
        signal: controller.signal,
        onChunk: (c) => {
          seen.push(c);
          if (seen.length === 3) controller.abort();
        },
      }),
    ).rejects.toThrow(/cancelled/);
    const next = await grpc({ prompt: EMOJI, maxTokens: 20, stream: true, id: 'reused' });
    expect(next.join('')).toBe(await expected(EMOJI, 20));
    // The cancellation reached the model: both requests together took far less than the
    // cancelled one's 400 tokens (800 ms) would have.
    const after = await simLlmWork();
    expect(after.requests - before.requests).toBe(2);
    expect(after.computeMs - before.computeMs).toBeLessThan(400 * 2 * 0.5);
  });
});

describe('cancellation over HTTP generate_stream', () => {
  it('a client that closes the SSE connection mid-answer leaves nothing behind: the next requests, same id or none, start clean', async () => {
    await grpc({ prompt: EMOJI, maxTokens: 2, stream: true }); // earlier requests have reported
    const before = await simLlmWork();
    const seen = await abandonGenerateStream(
      `${server.httpUrl}/v2/models/${MODEL}/generate_stream`,
      httpBody({ prompt: EMOJI, maxTokens: 400, stream: true, id: 'http-reused' }),
      3,
    );
    // What came before the close is the start of the whole answer.
    expect((await expected(EMOJI, 400)).startsWith(seen.join(''))).toBe(true);
    const want = await expected(EMOJI, 20);
    const sameId = await httpGenerateStream({
      prompt: EMOJI,
      maxTokens: 20,
      stream: true,
      id: 'http-reused',
    });
    expect(sameId.errors).toEqual([]);
    expect(sameId.chunks.join('')).toBe(want);
    const noId = await httpGenerateStream({ prompt: EMOJI, maxTokens: 20, stream: true });
    expect(noId.chunks.join('')).toBe(want);
    expect((await grpc({ prompt: EMOJI, maxTokens: 20, stream: true, id: 'http-reused' })).join('')).toBe(
      want,
    );
    // The server keeps serving: healthy, the model ready, every request counted by sim-llm.
    expect((await fetch(`${server.httpUrl}/v2/health/ready`)).status).toBe(200);
    expect((await fetch(`${server.httpUrl}/v2/models/${MODEL}/ready`)).status).toBe(200);
    // The closed connection reached the model as a cancellation (Triton's HTTP frontend cancels
    // the request, the orchestrator its model request): the four requests together took far
    // less than the abandoned one's 400 tokens (800 ms) would have (seen: ~140 ms).
    const after = await simLlmWork();
    expect(after.requests - before.requests).toBe(4);
    expect(after.computeMs - before.computeMs).toBeLessThan(400 * 2 * 0.5);
  });
});

describe('stop sequences', () => {
  const prompt = 'Stop here: the end of it. Then more words follow on and on';
  // "it. Th" spans several Llama tokens and starts inside one ("▁it", ".", "▁Then").
  const stop = ['it. Th'];

  it('end the text before the stop sequence, streamed or not, over gRPC and HTTP', async () => {
    const want = await expected(prompt, 60, stop[0]);
    expect(want).toBe('Stop here: the end of ');
    expect((await grpc({ prompt, maxTokens: 60, stream: true, stop })).join('')).toBe(want);
    expect(await grpc({ prompt, maxTokens: 60, stream: false, stop })).toEqual([want]);
    expect((await httpGenerate({ prompt, maxTokens: 60, stream: false, stop })).body.text_output).toBe(want);
    expect((await httpGenerateStream({ prompt, maxTokens: 60, stream: true, stop })).chunks.join('')).toBe(
      want,
    );
  });

  it('cancel the model request when one matches: sim-llm does a fraction of the work', async () => {
    await grpc({ prompt, maxTokens: 2, stream: true }); // earlier requests have reported
    const t0 = await simLlmWork();
    await grpc({ prompt, maxTokens: 200, stream: true });
    const t1 = await simLlmWork();
    await grpc({ prompt, maxTokens: 200, stream: true, stop });
    await grpc({ prompt, maxTokens: 2, stream: true }); // reports the stopped one when it has ended
    const t2 = await simLlmWork();
    expect([t1.requests - t0.requests, t2.requests - t1.requests]).toEqual([1, 2]);
    const full = t1.computeMs - t0.computeMs;
    const stopped = t2.computeMs - t1.computeMs;
    expect(full).toBeGreaterThan(200 * 2 * 0.9); // 200 tokens at 2 ms
    expect(stopped).toBeLessThan(full / 4);
  });
});

describe('bad requests', () => {
  it('a request without a required input gets an error naming it on every endpoint, and the model keeps serving', async () => {
    const missing = [bytesInput('text_input', [1, 1], ['Hello'])];
    await expect(async () => {
      for await (const _ of client.streamInfer(MODEL, missing, { id: '' })) void _;
    }).rejects.toThrow(/max_tokens/);
    const http = await fetch(`${server.httpUrl}/v2/models/${MODEL}/generate`, {
      method: 'POST',
      body: JSON.stringify({ text_input: 'Hello', stream: false }),
    });
    expect(http.status).toBe(400);
    expect(JSON.stringify(await http.json())).toMatch(/max_tokens/);
    const sse = await fetch(`${server.httpUrl}/v2/models/${MODEL}/generate_stream`, {
      method: 'POST',
      body: JSON.stringify({ text_input: 'Hello', stream: true }),
    });
    expect(`${sse.status} ${await sse.text()}`).toMatch(/max_tokens/);
    expect((await grpc({ prompt: 'Still serving', maxTokens: 4, stream: true })).join('')).toBe(
      await expected('Still serving', 4),
    );
  });
});
