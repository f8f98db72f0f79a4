/**
 * TypeScript hooks compiled into the generated tokenize and detokenize steps, in the real
 * tritonserver: the samples' hooks answer exactly as the same modules do in Node on fast-check
 * inputs (a subset of the differential proof, through the real steps rather than the direct
 * harness), and a hook that throws fails only its own request of a batch.
 *
 * Two ensembles observe the hooks without a model: GPT-2's byte-level tokenizer decodes what it
 * encodes exactly, so `text → tokenize → detokenize` answers afterDecode(beforeEncode(text)); and
 * behind sim-llm (which answers the ids it was given back), streaming one token per response, the
 * streaming detokenize step answers what onChunk/endStream make of the prompt. The same streaming pipeline served by the native
 * orchestrator runs the same hooks inside one model.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { formatDiagnostic, generateRepository, MANIFEST_FILE, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { loadInNode, stringArbitrary } from '../tscompile/harness.js';

const ROOT = resolve(__dirname, '../..');
const CHAT = join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
const STOP = join(ROOT, 'samples/gpt2-tensorrt-llm/hooks/stop-sequence.ts');
const REFUSE = join(ROOT, 'test/fixtures/ts-steps/hooks/refuse.ts');
const RUNS = Number(process.env.TS_SERVER_RUNS ?? 40);
const SEED = Number(process.env.TS_DIFF_SEED ?? 20261123);

const chat = loadInNode(CHAT);
const stop = loadInNode(STOP);

let work: string;
let server: LocalServer;
let client: TritonClient;
let gpt2: Tokenizer;

const port = (name: string, dataType: string, dims: number[], extra: object = {}) =>
  ({ name, dataType, dims, ...extra }) as Pipeline['inputs'][number];

/** text (+ system_prompt) → tokenize (chat hook) → detokenize (stop hook's afterDecode). */
const roundTrip: Pipeline = {
  version: 1,
  name: 'hooks_round_trip',
  maxBatchSize: 8,
  inputs: [port('text_input', 'STRING', [1]), port('system_prompt', 'STRING', [1], { optional: true })],
  outputs: [port('text_output', 'STRING', [1])],
  steps: [
    {
      name: 'rt_pre',
      kind: 'tokenize',
      tokenizer: 'gpt2',
      addSpecialTokens: false,
      hooks: CHAT,
      dynamicBatching: true,
      inputs: [port('TEXT', 'STRING', [1], { role: 'text' })],
      outputs: [port('IDS', 'INT64', [-1], { role: 'inputIds' })],
    },
    {
      name: 'rt_post',
      kind: 'detokenize',
      tokenizer: 'gpt2',
      hooks: STOP,
      dynamicBatching: true,
      inputs: [port('TOKENS', 'INT64', [-1], { role: 'tokens' })],
      outputs: [port('TEXT', 'STRING', [1], { role: 'text' })],
    },
  ],
  wires: [
    { from: 'text_input', to: 'rt_pre.TEXT' },
    { from: 'system_prompt', to: 'rt_pre.system_prompt' },
    { from: 'rt_pre.IDS', to: 'rt_post.TOKENS' },
    { from: 'rt_post.TEXT', to: 'text_output' },
  ],
};

/**
 * text → tokenize (refuses "boom") → sim-llm, streaming → detokenize (stop hook, per chunk), as a
 * Triton ensemble of the generated steps (`hooks_streamed`) and, the same pipeline with its steps
 * renamed, served by the native orchestrator (`hooks_orchestrated`), which runs the same hooks.
 */
const streamed = (name: string, prefix: string, serving: 'ensemble' | 'orchestrator'): Pipeline => ({
  version: 1,
  name,
  serving,
  maxBatchSize: 8,
  inputs: [port('text_input', 'STRING', [1]), port('max_tokens', 'INT32', [1])],
  outputs: [port('text_output', 'STRING', [-1])],
  steps: [
    {
      name: `${prefix}_pre`,
      kind: 'tokenize',
      preset: 'sim-llm/preprocessing',
      tokenizer: 'gpt2',
      addSpecialTokens: false,
      hooks: REFUSE,
      // Its own budget: the infinite loop is stopped after 2 s instead of the default 10 s.
      budget: { timeMs: 2000 },
      // Long enough that concurrent requests share one execution.
      dynamicBatching: { maxQueueDelayMicroseconds: 200_000 },
    },
    {
      name: `${prefix}_model`,
      kind: 'model',
      preset: 'sim-llm/model',
      decoupled: true,
      parameters: { prefill_us_per_token: 0, decode_us_per_step: 0 },
    },
    {
      name: `${prefix}_post`,
      kind: 'detokenize',
      preset: 'sim-llm/postprocessing',
      tokenizer: 'gpt2',
      hooks: STOP,
    },
  ],
  wires: [
    { from: 'text_input', to: `${prefix}_pre.QUERY` },
    { from: 'max_tokens', to: `${prefix}_pre.REQUEST_OUTPUT_LEN` },
    { from: `${prefix}_pre.INPUT_ID`, to: `${prefix}_model.input_ids` },
    { from: `${prefix}_pre.REQUEST_INPUT_LEN`, to: `${prefix}_model.input_lengths` },
    { from: `${prefix}_pre.REQUEST_OUTPUT_LEN`, to: `${prefix}_model.request_output_len` },
    { from: `${prefix}_model.output_ids`, to: `${prefix}_post.TOKENS_BATCH` },
    { from: `${prefix}_model.sequence_length`, to: `${prefix}_post.SEQUENCE_LENGTH` },
    { from: `${prefix}_post.OUTPUT`, to: 'text_output' },
  ],
});
const ENSEMBLE = streamed('hooks_streamed', 'st', 'ensemble');
const ORCHESTRATED = streamed('hooks_orchestrated', 'so', 'orchestrator');
// Clients choose whether sim-llm streams (one token per response) or answers once: without its
// `streaming` input wired, sim-llm answers in one response and the stream hooks see one chunk.
for (const [p, prefix] of [
  [ENSEMBLE, 'st'],
  [ORCHESTRATED, 'so'],
] as const) {
  p.inputs.push(port('stream', 'BOOL', [1], { optional: true }));
  p.steps[1]!.inputs = [port('streaming', 'BOOL', [1], { optional: true })];
  p.wires.push({ from: 'stream', to: `${prefix}_model.streaming` });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ts-hooks-'));
  const served = join(work, 'served');
  const models: string[] = [];
  for (const p of [roundTrip, ENSEMBLE, ORCHESTRATED]) {
    const file = join(work, `${p.name}.pipeline.json`);
    writeFileSync(file, JSON.stringify(p, null, 2));
    const repo = join(work, p.name);
    const generated = generateRepository({ pipelinePath: file, outDir: repo });
    const errors = generated.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map(formatDiagnostic)).toEqual([]);
    await buildRepository(repo, { stepsBuildDir: join(work, 'steps') });
    models.push(...generated.models.map((m) => m.name));
    // One server for both: their model folders side by side.
    cpSync(repo, served, { recursive: true, filter: (src) => !src.endsWith(MANIFEST_FILE) });
  }
  server = await startLocalServer({
    modelRepository: served,
    loadModels: models,
    logFile: join(work, 'server.log'),
  });
  client = new TritonClient(server.grpcUrl);
  gpt2 = await Tokenizer.fromFile(resolveTokenizer('gpt2', ROOT, defaultTokenizerSearchDirs()).file!);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What the server receives of a JS string: UTF-8, lone surrogates as U+FFFD. */
const wire = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

/**
 * Each response's text_output, in order (empty ones too: a hook may hold a chunk back).
 * `id: ''` sends no request id (the orchestrator needs none); default: a fresh one.
 */
async function streamChunks(
  model: string,
  inputs: ReturnType<typeof bytesInput>[],
  id?: string,
): Promise<string[]> {
  const chunks: string[] = [];
  for await (const r of client.streamInfer(model, inputs, id === undefined ? {} : { id })) {
    if (r.outputs.has('text_output')) chunks.push(r.strings('text_output').join(''));
  }
  return chunks;
}

async function streamText(
  model: string,
  inputs: ReturnType<typeof bytesInput>[],
  id?: string,
): Promise<string> {
  return (await streamChunks(model, inputs, id)).join('');
}

describe('sample hooks in tritonserver answer as in Node', () => {
  it(`beforeEncode (with its system_prompt input) and afterDecode, on ${RUNS} generated prompts`, async () => {
    const inputs = fc.sample(fc.tuple(stringArbitrary(), fc.option(stringArbitrary(), { nil: undefined })), {
      numRuns: RUNS,
      seed: SEED,
    });
    // The stop sequence and the chat markers where afterDecode and the template act on them.
    inputs.push(['what?\n\n### hidden', 'sys'], ['a [/INST] b', undefined], ['  x  ', '  🙂 ']);
    const mismatches: string[] = [];
    for (const [prompt, system] of inputs) {
      const node = stop.afterDecode!(
        chat.beforeEncode!(wire(prompt), { system_prompt: system === undefined ? '' : wire(system) }),
      ) as string;
      const request = [bytesInput('text_input', [1, 1], [prompt])];
      if (system !== undefined) request.push(bytesInput('system_prompt', [1, 1], [system]));
      const r = await client.infer('hooks_round_trip', request);
      const served = r.strings('text_output')[0];
      if (served !== node) mismatches.push(JSON.stringify({ prompt, system, node, served }));
    }
    expect(mismatches).toEqual([]);
  });

  it(`startStream/onChunk/endStream on ${RUNS} generated prompts streamed one token per response`, async () => {
    // The oracle: for this module, whatever the chunking, the deltas add up to afterDecode's text.
    const chunked = (text: string, cuts: number[]) => {
      const state = stop.startStream!();
      let out = '';
      let at = 0;
      for (const c of [...cuts.filter((x) => x < text.length).sort((a, b) => a - b), text.length]) {
        out += stop.onChunk!(state, text.slice(at, c)) as string;
        at = c;
      }
      return out + (stop.endStream!(state) as string);
    };
    const STOP_TEXT = '\n\n###';
    const prompts = fc.sample(
      fc.tuple(stringArbitrary(), fc.nat(STOP_TEXT.length), fc.boolean(), stringArbitrary()),
      { numRuns: RUNS, seed: SEED + 1 },
    );
    const mismatches: string[] = [];
    for (const [head, stopLength, inside, tail] of prompts) {
      // The stop sequence, or its start, inside or at the end of the answer.
      const prompt = wire(
        inside ? head + STOP_TEXT.slice(0, stopLength) + tail : head + STOP_TEXT.slice(0, stopLength),
      );
      const node = stop.afterDecode!(prompt) as string;
      expect(chunked(prompt, [1, 3, 7, 20])).toBe(node);
      // The end token ends the stream: sim-llm passes it through (no end_id), so endStream runs.
      // Streamed, the ensemble's detokenize step gets one token per request (keyed by the request
      // id) and answers each: one response per token; not streamed, all of them at once.
      const ids = (await gpt2.encode(`${prompt}<|endoftext|>`, null, { addSpecialTokens: false })).getIds();
      for (const stream of [true, false]) {
        const chunks = await streamChunks('hooks_streamed', [
          bytesInput('text_input', [1, 1], [`${prompt}<|endoftext|>`]),
          numericInput('max_tokens', 'INT32', [1, 1], [ids.length]),
          numericInput('stream', 'BOOL', [1, 1], [stream]),
        ]);
        const served = chunks.join('');
        if (served !== node || chunks.length !== (stream ? ids.length : 1))
          mismatches.push(
            JSON.stringify({ stream, prompt, node, served, chunks: chunks.length, tokens: ids.length }),
          );
      }
      // The orchestrator learns of every end: no end token needed, and no request id. Streamed,
      // the deltas go through onChunk/endStream; not streamed, the whole text through afterDecode.
      const n = (await gpt2.encode(prompt, null, { addSpecialTokens: false })).getIds().length;
      for (const stream of [true, false]) {
        const orchestrated = await streamText(
          'hooks_orchestrated',
          [
            bytesInput('text_input', [1, 1], [prompt]),
            numericInput('max_tokens', 'INT32', [1, 1], [n]),
            numericInput('stream', 'BOOL', [1, 1], [stream]),
          ],
          '',
        );
        if (orchestrated !== node) mismatches.push(JSON.stringify({ stream, prompt, node, orchestrated }));
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe('a hook that throws', () => {
  it('fails only its own request in the orchestrator; the others are answered', async () => {
    const prompts = ['first 🙂', 'boom one', 'second\n\n### cut', 'boom two', 'third'];
    const results = await Promise.allSettled(
      prompts.map(async (prompt) => {
        const ids = (await gpt2.encode(prompt, null, { addSpecialTokens: false })).getIds();
        return streamText(
          'hooks_orchestrated',
          [
            bytesInput('text_input', [1, 1], [prompt]),
            numericInput('max_tokens', 'INT32', [1, 1], [ids.length]),
            numericInput('stream', 'BOOL', [1, 1], [true]),
          ],
          '',
        );
      }),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((results[1] as PromiseRejectedResult).reason.message).toContain('Error: refused "boom one"');
    expect((results[3] as PromiseRejectedResult).reason.message).toContain('Error: refused "boom two"');
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual([
      'first 🙂',
      'second',
      'third',
    ]);
  });

  it('fails only its own request; the others of the same batch are answered', async () => {
    const prompts = ['first 🙂', 'boom one', 'second\n\n### cut', 'boom two', 'third'];
    const before = await client.modelStatistics('st_pre');
    const results = await Promise.allSettled(
      prompts.map(async (prompt) => {
        const ids = (await gpt2.encode(prompt, null, { addSpecialTokens: false })).getIds();
        return streamText('hooks_streamed', [
          bytesInput('text_input', [1, 1], [prompt]),
          numericInput('max_tokens', 'INT32', [1, 1], [ids.length]),
        ]);
      }),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((results[1] as PromiseRejectedResult).reason.message).toContain('Error: refused "boom one"');
    expect((results[3] as PromiseRejectedResult).reason.message).toContain('Error: refused "boom two"');
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => r.value)).toEqual([
      'first 🙂',
      'second',
      'third',
    ]);
    // Five requests, fewer executions of the tokenize step: the failing ones shared a batch.
    const [after] = await client.modelStatistics('st_pre');
    const executions = Number(after!.execution_count) - Number(before[0]!.execution_count);
    expect(executions).toBeLessThan(prompts.length);
    // The server and the step keep serving.
    expect(
      await streamText('hooks_streamed', [
        bytesInput('text_input', [1, 1], ['after']),
        numericInput('max_tokens', 'INT32', [1, 1], [1]),
      ]),
    ).toBe('after');
  });
});

describe('a hook that would take the server down (issue 25)', () => {
  const send = (prompt: string): Promise<string> =>
    streamText('hooks_streamed', [
      bytesInput('text_input', [1, 1], [prompt]),
      numericInput('max_tokens', 'INT32', [1, 1], [1]),
    ]);
  const rssMb = (): number =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;

  it.each([
    ['recurse deep', 'RangeError: Maximum call stack size exceeded'],
    ['repeat huge', "the step's memory budget of 268435456 bytes would be exceeded"],
    ['hoard many', "the step's memory budget of 268435456 bytes would be exceeded"],
    ['loop forever', "the step's time budget of 2000 ms is spent"],
  ])(
    '"%s" fails its own request with "%s"; the server stays up and answers the next exactly',
    async (prompt, error) => {
      const before = rssMb();
      await expect(send(prompt)).rejects.toThrow(error);
      expect(await client.serverLive()).toBe(true);
      expect(await send('after')).toBe('after');
      // Nothing of the failed request stays (the string would have been 600 MB; the hoard 2 GB).
      expect(rssMb()).toBeLessThan(before + 100);
    },
    60_000,
  );

  it('counts what a call holds, not what it made: 300,000 dropped 2 KB strings pass', async () => {
    expect(await send('churn much')).toBe('ch');
  }, 60_000);
});
