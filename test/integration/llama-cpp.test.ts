/**
 * The llama.cpp model step with the real SmolLM2-135M-Instruct (fetched by `npm run setup`) in the
 * real tritonserver, generated from samples/smollm2-llama-cpp: the answers are the model's (a
 * factual prompt answered correctly, not an echo), streamed one token per response, requests share
 * decode steps (in-flight batching) without changing each other's greedy answers, a bad request
 * fails alone, a cancelled one leaves the rest going, a seed makes sampling repeatable; the
 * batching study runs on it, and too many threads are warned about. Prompt ids
 * come from Hugging Face's own `tokenizers` on the tokenizer.json imported from the GGUF. Short
 * prompts and few tokens: this runs in CI on 2 cores.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { bytesInput, numericInput, TritonClient, type InferInput } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { runBatchingStudy } from '../../client/study/batching.js';
import { llamaStudyTarget } from '../../client/study/llamaTarget.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json');
const TOKENIZER = resolveTokenizer('smollm2-135m-instruct', SAMPLE, defaultTokenizerSearchDirs()).file;

const scratch = mkdtempSync(join(tmpdir(), 'ts-llama-cpp-test-'));
const repo = join(scratch, 'repo');
let server: LocalServer;
let client: TritonClient;
let hf: Tokenizer;

beforeAll(async () => {
  if (!TOKENIZER)
    throw new Error('the SmolLM2 tokenizer is missing: run `npm run setup` (scripts/fetch-llama.sh)');
  hf = Tokenizer.fromFile(TOKENIZER);
  const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
  delete pipeline.$schema;
  const llama = pipeline.steps.find((s) => s.name === 'llama')!;
  llama.parameters = { ...llama.parameters, context_length: '256' };
  const file = join(scratch, 'smollm2.pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline));
  const generated = generateRepository({ pipelinePath: file, outDir: repo });
  expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  await buildRepository(repo);
  server = await startLocalServer({ modelRepository: repo });
  client = new TritonClient(server.grpcUrl);
  const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
  expect(deployed.models.map((m) => [m.model, m.state])).toEqual([
    ['llama', 'ready'],
    ['smollm2', 'ready'],
  ]);
}, 600_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function ids(text: string): Promise<number[]> {
  return (await hf.encode(text, null, { addSpecialTokens: false })).getIds();
}
const decode = (tokens: number[]) => hf.decode(tokens, true);

interface StepRequest {
  prompt: number[];
  maxTokens: number;
  streaming?: boolean;
  sampling?: { temperature: number; topK: number; seed: number };
  signal?: AbortSignal;
}

function stepInputs(r: StepRequest): InferInput[] {
  const list = [
    numericInput('input_ids', 'INT32', [1, r.prompt.length], r.prompt),
    numericInput('input_lengths', 'INT32', [1, 1], [r.prompt.length]),
    numericInput('request_output_len', 'INT32', [1, 1], [r.maxTokens]),
    numericInput('streaming', 'BOOL', [1, 1], [r.streaming ?? true]),
  ];
  if (r.sampling) {
    list.push(
      numericInput('temperature', 'FP32', [1, 1], [r.sampling.temperature]),
      numericInput('runtime_top_k', 'INT32', [1, 1], [r.sampling.topK]),
      numericInput('random_seed', 'UINT64', [1, 1], [r.sampling.seed]),
    );
  }
  return list;
}

/** The model step's responses: the ids each carried. */
async function step(r: StepRequest): Promise<number[][]> {
  const responses: number[][] = [];
  for await (const res of client.streamInfer('llama', stepInputs(r), { signal: r.signal })) {
    responses.push(res.numbers('output_ids'));
  }
  return responses;
}

async function stepError(r: StepRequest): Promise<string> {
  try {
    await step(r);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the request was expected to fail');
}

describe('the SmolLM2 pipeline behind the orchestrator', () => {
  it('answers a factual prompt with the model’s knowledge, streamed chunks equal to the whole answer', async () => {
    const ask = async (stream: boolean) => {
      const chunks: string[] = [];
      for await (const r of client.streamInfer('smollm2', [
        bytesInput('text_input', [1, 1], ['The capital of France is']),
        numericInput('max_tokens', 'INT32', [1, 1], [6]),
        numericInput('stream', 'BOOL', [1, 1], [stream]),
      ])) {
        chunks.push(r.strings('text_output').join(''));
      }
      return chunks;
    };
    const streamed = await ask(true);
    const whole = await ask(false);
    expect(streamed.length).toBeGreaterThan(1);
    expect(whole).toHaveLength(1);
    expect(streamed.join('')).toBe(whole[0]);
    expect(whole[0]).toMatch(/^ Paris\b/);
  });
  it('answers a conversation rendered with the model’s own ChatML template from the imported tokenizer_config.json', async () => {
    // A 135M model: asked "What is the capital of France?" in chat form it rambles in French, and
    // llama.cpp alone on the same rendered text says the same; this phrasing it answers right.
    const messages = JSON.stringify([{ role: 'user', content: 'Name the capital of France.' }]);
    const chunks: string[] = [];
    for await (const r of client.streamInfer('smollm2', [
      bytesInput('messages', [1, 1], [messages]),
      numericInput('max_tokens', 'INT32', [1, 1], [10]),
      numericInput('stream', 'BOOL', [1, 1], [true]),
    ])) {
      chunks.push(r.strings('text_output').join(''));
    }
    expect(chunks.join('')).toMatch(/\bParis\b/);
  });
});

describe('the llama.cpp step (TensorRT-LLM tensors)', () => {
  it('streams one token per response and answers once when not streaming, the same greedy tokens', async () => {
    const prompt = await ids('The capital of France is');
    const streamed = await step({ prompt, maxTokens: 4 });
    expect(streamed.map((r) => r.length)).toEqual([1, 1, 1, 1]);
    const once = await step({ prompt, maxTokens: 4, streaming: false });
    expect(once).toEqual([streamed.flat()]);
    expect(await decode(streamed.flat())).toMatch(/^ Paris/);
  });

  it('decodes concurrent requests in shared steps, each getting the answer it gets alone', async () => {
    const prompts = await Promise.all(
      ['The capital of France is', 'Water is made of', 'One, two, three,'].map(ids),
    );
    const executions = async () => (await client.modelStatistics('llama'))[0]!.execution_count;
    const alone: number[][] = [];
    const start = await executions();
    for (const prompt of prompts) alone.push((await step({ prompt, maxTokens: 5 })).flat());
    const middle = await executions();
    const together = await Promise.all(
      prompts.map(async (prompt) => (await step({ prompt, maxTokens: 5 })).flat()),
    );
    const end = await executions();
    expect(together).toEqual(alone);
    // Each execution the step reports is one llama.cpp decode step (llama_batch): alone, one per
    // token; together, the requests' tokens shared steps.
    expect(middle - start).toBe(15);
    expect(end - middle).toBeLessThan(15);
  });

  it('fails a request that cannot run alone, with what to change, while another goes on', async () => {
    const good = step({ prompt: await ids('The capital of France is'), maxTokens: 4 });
    const tooLong = await stepError({ prompt: Array<number>(300).fill(42), maxTokens: 4 });
    expect(tooLong).toMatch(/exceeds the context of 256 tokens.*context_length/);
    const outside = await stepError({ prompt: [1, 49152], maxTokens: 4 });
    expect(outside).toMatch(/outside the model's vocabulary of 49152/);
    expect(await decode((await good).flat())).toMatch(/^ Paris/);
  });

  it('goes on serving after a request is cancelled mid-answer', async () => {
    const prompt = await ids('The capital of France is');
    const controller = new AbortController();
    const responses: number[][] = [];
    await expect(
      (async () => {
        for await (const res of client.streamInfer('llama', stepInputs({ prompt, maxTokens: 40 }), {
          signal: controller.signal,
        })) {
          responses.push(res.numbers('output_ids'));
          if (responses.length === 2) controller.abort();
        }
      })(),
    ).rejects.toThrow();
    expect(responses).toHaveLength(2);
    expect(await decode((await step({ prompt, maxTokens: 3 })).flat())).toMatch(/^ Paris/);
  });

  it('samples repeatably with a seed', async () => {
    const prompt = await ids('Once upon a time');
    const sampling = { temperature: 1.0, topK: 40, seed: 7 };
    const first = (await step({ prompt, maxTokens: 6, sampling })).flat();
    const second = (await step({ prompt, maxTokens: 6, sampling })).flat();
    expect(first).toHaveLength(6);
    expect(second).toEqual(first);
  });
});

describe('the batching study on the real model (llama.cpp step modes)', () => {
  it('runs none and in-flight on the same seeded workload: every request gets the tokens it asked for', async () => {
    const target = await llamaStudyTarget({ contextLength: 128, threads: 1 });
    expect(target.modes).toEqual(['none', 'dynamic', 'inflight']);
    const report = await runBatchingStudy(client, {
      target,
      modes: ['none', 'inflight'],
      startRate: 2,
      maxSteps: 1,
      stepS: 2,
      minTokens: 1,
      maxTokens: 4,
    });
    expect(report.target).toMatchObject({ engine: 'llama-cpp', gguf: 'SmolLM2-135M-Instruct.Q4_1.gguf' });
    expect(report.modes.map((m) => m.mode)).toEqual(['none', 'inflight']);
    for (const mode of report.modes) {
      const [only] = mode.steps;
      expect(only!.metrics.error_request_count?.avg).toBe(0);
      expect(only!.requests).toHaveLength(8);
      // The counting prompt keeps a small model going: answers run to the tokens asked for.
      for (const r of only!.requests) expect(r.outputTokens).toBe(r.requestedTokens);
    }
    // The same seeded requests in both modes.
    const asked = (i: number) => report.modes[i]!.steps[0]!.requests.map((r) => r.requestedTokens).sort();
    expect(asked(1)).toEqual(asked(0));
    expect(report.findings.map((f) => f.claim)).toHaveLength(3);
    // The study's models are gone afterwards.
    await expect(client.modelConfig('ts_study_none')).rejects.toThrow();
  });

  it('refuses static batching, which the step does not have, naming its modes', async () => {
    const target = await llamaStudyTarget({ contextLength: 128, threads: 1 });
    await expect(runBatchingStudy(client, { target, modes: ['static'] })).rejects.toThrow(
      /scheduling mode 'static' is not one of llama-cpp's: none, dynamic, inflight/,
    );
  });
});

describe("the llama.cpp step's thread count", () => {
  it('warns in the server log when n_threads leaves no CPU free, saying what to set', async () => {
    const name = 'ts_llama_threads';
    const threads = availableParallelism() + 1;
    const target = await llamaStudyTarget({ contextLength: 64, threads });
    await target.load(client, name, 'inflight');
    try {
      expect(readFileSync(server.logFile, 'utf8')).toMatch(
        new RegExp(
          `llama_cpp: n_threads ${threads} leaves no CPU free of the \\d+ this server may use.*Set n_threads to 0`,
        ),
      );
    } finally {
      await client.unloadModel(name);
    }
  });
});
