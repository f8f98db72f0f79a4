/**
 * sim-llm's latency model and decoupled streaming against the real tritonserver: measured times
 * must match the configured model (it is the known truth the latency test is checked against),
 * and a decoupled model streams one response per generated token. Also its text (vLLM) and
 * encoder-classifier interfaces: exact answers, options, and errors that leave the model serving.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';

const FIXTURES = resolve(__dirname, '../fixtures/native-steps/sim-llm');

let work: string;
let server: LocalServer;
let client: TritonClient;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ts-sim-llm-'));
  const repo = join(work, 'repo');
  cpSync(FIXTURES, repo, { recursive: true });
  await buildRepository(repo, { stepsBuildDir: join(work, 'steps') });
  server = await startLocalServer({
    modelRepository: repo,
    loadModels: [
      'sim_timed',
      'sim_stream',
      'sim_batched',
      'sim_text',
      'sim_text_unary',
      'sim_classifier',
      'sim_embedder',
    ],
  });
  client = new TritonClient(server.grpcUrl);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const echo = (prompt: number[], n: number) =>
  Array.from({ length: n }, (_, i) => prompt[i % prompt.length] as number);

describe('sim-llm latency model (prefill 1 ms/token, decode 10 ms/step, batch cost factor 0.5)', () => {
  const prompt = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];

  async function timed(rows: number, outputLen: number) {
    const start = performance.now();
    const result = await client.infer('sim_timed', [
      numericInput('input_ids', 'UINT32', [rows, prompt.length], Array(rows).fill(prompt).flat()),
      numericInput('input_lengths', 'UINT32', [rows, 1], Array(rows).fill(prompt.length)),
      numericInput('request_output_len', 'UINT32', [rows, 1], Array(rows).fill(outputLen)),
    ]);
    return { ms: performance.now() - start, result };
  }

  it('takes prefill x prompt tokens + decode x steps for one sequence, and includes the prompt when asked', async () => {
    await timed(1, 1); // warm-up
    const { ms, result } = await timed(1, 20);
    const expectedMs = 10 * 1 + 20 * 10; // 210 ms
    expect(ms).toBeGreaterThanOrEqual(expectedMs);
    expect(ms).toBeLessThan(expectedMs + 150);
    expect(result.numbers('output_ids')).toEqual([...prompt, ...echo(prompt, 20)]);
    expect(result.numbers('sequence_length')).toEqual([prompt.length + 20]);
  });

  it('charges every decode step more when more sequences are generating together', async () => {
    const { ms } = await timed(2, 20);
    const expectedMs = 20 * 1 + 20 * 10 * (1 + 0.5 * (2 - 1)); // 320 ms
    expect(ms).toBeGreaterThanOrEqual(expectedMs);
    expect(ms).toBeLessThan(expectedMs + 150);
  });
});

describe('sim-llm under dynamic batching', () => {
  it('answers concurrent requests with prompts of different lengths in shared Executes, each with its own echo', async () => {
    const prompts = Array.from({ length: 6 }, (_, i) =>
      Array.from({ length: i + 1 }, (_, j) => 100 * (i + 1) + j),
    );
    const results = await Promise.all(
      prompts.map((p, i) =>
        client.infer('sim_batched', [
          numericInput('input_ids', 'UINT32', [1, p.length], p),
          numericInput('input_lengths', 'UINT32', [1, 1], [p.length]),
          numericInput('request_output_len', 'UINT32', [1, 1], [i + 3]),
        ]),
      ),
    );
    results.forEach((r, i) => expect(r.numbers('output_ids')).toEqual(echo(prompts[i] as number[], i + 3)));
    const [model] = await client.modelStatistics('sim_batched');
    expect(Number(model?.inference_count)).toBe(6);
    expect(Number(model?.execution_count)).toBeLessThan(6); // batch statistics reported by the backend
  });
});

describe('decoupled sim-llm (model_transaction_policy decoupled, INT32 interface)', () => {
  it('streams one response per generated token, about one decode step apart, the last one final', async () => {
    const prompt = [7, 8, 9];
    const tokens: number[] = [];
    const arrivals: number[] = [];
    const start = performance.now();
    for await (const response of client.streamInfer('sim_stream', [
      numericInput('input_ids', 'INT32', [1, 3], prompt),
      numericInput('input_lengths', 'INT32', [1, 1], [3]),
      numericInput('request_output_len', 'INT32', [1, 1], [5]),
      numericInput('streaming', 'BOOL', [1, 1], [true]),
    ])) {
      arrivals.push(performance.now() - start);
      expect(response.output('output_ids').shape).toEqual([1, 1, 1]);
      expect(response.numbers('sequence_length')).toEqual([1]);
      tokens.push(...response.numbers('output_ids'));
    }
    expect(tokens).toEqual(echo(prompt, 5));
    const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number));
    for (const gap of gaps) expect(gap).toBeGreaterThan(12); // 20 ms steps, with timer slack
    expect(arrivals[0]).toBeGreaterThanOrEqual(20); // first token after prefill + one step
  });

  /** Every response of one request to sim_stream: [output_ids, sequence_length] each. */
  async function generate(
    prompt: number[],
    outputLen: number,
    extra: ReturnType<typeof numericInput>[] = [],
  ) {
    const responses: [number[], number[]][] = [];
    for await (const r of client.streamInfer('sim_stream', [
      numericInput('input_ids', 'INT32', [1, prompt.length], prompt),
      numericInput('input_lengths', 'INT32', [1, 1], [prompt.length]),
      numericInput('request_output_len', 'INT32', [1, 1], [outputLen]),
      ...extra,
    ]))
      responses.push([r.numbers('output_ids'), r.numbers('sequence_length')]);
    return responses;
  }
  /** TensorRT-LLM's word-list layout for one row: [1, 2, L], ids then end offsets (-1 padded). */
  const words = (name: string, list: number[][]) => {
    const ids = list.flat();
    const offsets = list.map((_, i) => list.slice(0, i + 1).flat().length);
    const width = Math.max(ids.length, 1);
    const pad = (a: number[], v: number) => [...a, ...Array(width - a.length).fill(v)];
    return numericInput(name, 'INT32', [1, 2, width], [...pad(ids, 0), ...pad(offsets, -1)]);
  };

  it('answers once, like TensorRT-LLM, when the request does not ask for streaming', async () => {
    expect(await generate([5, 6], 5)).toEqual([[echo([5, 6], 5), [5]]]);
  });

  it('ends at end_id without emitting it, streamed or not', async () => {
    const endId = numericInput('end_id', 'INT32', [1, 1], [9]);
    expect(await generate([7, 8, 9], 6, [endId])).toEqual([[[7, 8], [2]]]);
    const streamed = await generate([7, 8, 9], 6, [endId, numericInput('streaming', 'BOOL', [1, 1], [true])]);
    expect(streamed.map(([ids]) => ids)).toEqual([[7], [8]]);
  });

  it('ends after a stop word, which is emitted; a one-token stop word ends at once', async () => {
    expect(await generate([1, 2, 3, 4], 10, [words('stop_words_list', [[3, 4, 1]])])).toEqual([
      [[1, 2, 3, 4, 1], [5]],
    ]);
    expect(await generate([1, 2, 3, 4], 10, [words('stop_words_list', [[9, 9], [2]])])).toEqual([
      [[1, 2], [2]],
    ]);
  });

  it('never emits a bad word: a token that would complete one is passed over for the next', async () => {
    // [2] is banned outright; [4, 1] bans 1 right after 4.
    const out = await generate([1, 2, 3, 4], 8, [words('bad_words_list', [[2], [4, 1]])]);
    expect(out).toEqual([[[1, 3, 4, 3, 4, 3, 4, 3], [8]]]);
    // Every candidate banned: the row ends there.
    expect(await generate([2, 2], 4, [words('bad_words_list', [[2]])])).toEqual([[[], [0]]]);
  });

  it('sends one final response with every token when the request says streaming = false', async () => {
    const start = performance.now();
    const responses = [];
    for await (const r of client.streamInfer('sim_stream', [
      numericInput('input_ids', 'INT32', [1, 2], [5, 6]),
      numericInput('input_lengths', 'INT32', [1, 1], [2]),
      numericInput('request_output_len', 'INT32', [1, 1], [5]),
      numericInput('streaming', 'BOOL', [1, 1], [false]),
    ]))
      responses.push(r);
    expect(responses).toHaveLength(1);
    expect(responses[0]?.numbers('output_ids')).toEqual(echo([5, 6], 5));
    expect(responses[0]?.numbers('sequence_length')).toEqual([5]);
    expect(performance.now() - start).toBeGreaterThanOrEqual(5 * 20);
  });

  it('answers a bad streamed request with an error and keeps streaming for the next one', async () => {
    const stream = async (length: number) => {
      const out: number[] = [];
      for await (const r of client.streamInfer('sim_stream', [
        numericInput('input_ids', 'INT32', [1, 2], [4, 2]),
        numericInput('input_lengths', 'INT32', [1, 1], [length]),
        numericInput('request_output_len', 'INT32', [1, 1], [2]),
        numericInput('streaming', 'BOOL', [1, 1], [true]),
      ]))
        out.push(...r.numbers('output_ids'));
      return out;
    };
    await expect(stream(0)).rejects.toThrow(/empty prompt/);
    expect(await stream(2)).toEqual([4, 2]);
  });
});

describe("sim-llm's text interface (vLLM: text_input, stream, sampling_parameters -> text_output)", () => {
  const prompt = 'one two  three';
  const pieces = (n: number) => Array.from({ length: n }, (_, i) => ` ${['one', 'two', 'three'][i % 3]}`);

  async function texts(model: string, inputs: Parameters<TritonClient['streamInfer']>[1]) {
    const out: string[] = [];
    for await (const r of client.streamInfer(model, inputs)) out.push(...r.strings('text_output'));
    return out;
  }
  const sampling = (json: unknown) => bytesInput('sampling_parameters', [1], [JSON.stringify(json)]);

  it('streams the prompt and then one piece per response, a decode step apart', async () => {
    const arrivals: number[] = [];
    const chunks: string[] = [];
    const start = performance.now();
    for await (const r of client.streamInfer('sim_text', [
      bytesInput('text_input', [1], [prompt]),
      numericInput('stream', 'BOOL', [1], [true]),
      sampling({ max_tokens: 4 }),
    ])) {
      arrivals.push(performance.now() - start);
      chunks.push(...r.strings('text_output'));
    }
    expect(chunks).toEqual([prompt + ' one', ' two', ' three', ' one']);
    const gaps = arrivals.slice(1).map((t, i) => t - (arrivals[i] as number));
    for (const gap of gaps) expect(gap).toBeGreaterThan(6); // 10 ms steps, with timer slack
  });

  it('answers in one response when not streaming, 16 tokens by default, the prompt left out on request', async () => {
    expect(await texts('sim_text', [bytesInput('text_input', [1], [prompt])])).toEqual([
      prompt + pieces(16).join(''),
    ]);
    expect(
      await texts('sim_text', [
        bytesInput('text_input', [1], [prompt]),
        numericInput('exclude_input_in_output', 'BOOL', [1], [true]),
        sampling({ max_tokens: 2 }),
      ]),
    ).toEqual([' one two']);
    // Streamed with max_tokens 0: the prompt alone, in one final response.
    expect(
      await texts('sim_text', [
        bytesInput('text_input', [1], [prompt]),
        numericInput('stream', 'BOOL', [1], [true]),
        sampling({ max_tokens: 0 }),
      ]),
    ).toEqual([prompt]);
  });

  it('serves ModelInfer too when the model is not decoupled', async () => {
    const r = await client.infer('sim_text_unary', [
      bytesInput('text_input', [1], [prompt]),
      sampling({ max_tokens: 3 }),
    ]);
    expect(r.strings('text_output')).toEqual([prompt + pieces(3).join('')]);
  });

  it('answers bad requests with an error that says what to change, and keeps serving', async () => {
    const ask = (inputs: Parameters<TritonClient['streamInfer']>[1]) => texts('sim_text', inputs);
    await expect(ask([bytesInput('text_input', [1], ['   '])])).rejects.toThrow(/empty prompt/);
    await expect(
      ask([bytesInput('text_input', [1], [prompt]), bytesInput('sampling_parameters', [1], ['{'])]),
    ).rejects.toThrow(/must be a JSON object/);
    await expect(
      ask([bytesInput('text_input', [1], [prompt]), sampling({ max_tokens: -1 })]),
    ).rejects.toThrow(/max_tokens must be between 0 and 4096, got -1/);
    expect(await ask([bytesInput('text_input', [1], [prompt]), sampling({ max_tokens: 1 })])).toEqual([
      prompt + ' one',
    ]);
  });
});

describe("sim-llm's classifier interface (input_ids, attention_mask -> logits)", () => {
  /** logits[k] = (sum over unmasked positions j of id_j * (j + 1 + k)) mod 65521 */
  const logits = (ids: number[], mask: number[]) =>
    [0, 1, 2].map((k) => ids.reduce((sum, id, j) => (mask[j] ? (sum + id * (j + 1 + k)) % 65521 : sum), 0));

  it('computes each row from its ids and mask: padding is ignored, order matters', async () => {
    const rows = [
      { ids: [101, 2023, 102, 0], mask: [1, 1, 1, 0] },
      { ids: [101, 102, 2023, 7], mask: [1, 1, 1, 1] },
    ];
    const r = await client.infer('sim_classifier', [
      numericInput(
        'input_ids',
        'INT64',
        [2, 4],
        rows.flatMap((x) => x.ids),
      ),
      numericInput(
        'attention_mask',
        'INT64',
        [2, 4],
        rows.flatMap((x) => x.mask),
      ),
    ]);
    expect(r.output('logits').datatype).toBe('FP32');
    expect(r.output('logits').shape).toEqual([2, 3]);
    expect(r.numbers('logits')).toEqual(rows.flatMap((x) => logits(x.ids, x.mask)));
    // The same ids without the padding position give the same logits.
    const unpadded = await client.infer('sim_classifier', [
      numericInput('input_ids', 'INT64', [1, 3], [101, 2023, 102]),
      numericInput('attention_mask', 'INT64', [1, 3], [1, 1, 1]),
    ]);
    expect(unpadded.numbers('logits')).toEqual(logits([101, 2023, 102], [1, 1, 1]));
  });

  it('rejects ids and mask of different shapes, and keeps serving', async () => {
    await expect(
      client.infer('sim_classifier', [
        numericInput('input_ids', 'INT64', [1, 3], [1, 2, 3]),
        numericInput('attention_mask', 'INT64', [1, 2], [1, 1]),
      ]),
    ).rejects.toThrow(/must both have shape \[batch, tokens\], got \[1,3\] and \[1,2\]/);
    const ok = await client.infer('sim_classifier', [
      numericInput('input_ids', 'INT64', [1, 1], [5]),
      numericInput('attention_mask', 'INT64', [1, 1], [1]),
    ]);
    expect(ok.numbers('logits')).toEqual([5, 10, 15]);
  });

  it('refuses to load a classifier whose logits are not FP32, saying so', async () => {
    await expect(client.loadModel('sim_classifier_bad')).rejects.toThrow(
      /needs an output 'logits' of TYPE_FP32/,
    );
  });
});

describe("sim-llm's encoder interface with type ids (input_ids, attention_mask, token_type_ids -> sentence_embedding)", () => {
  /** out[k] = (sum over unmasked j of (id_j + 50000 * type_j) * (j + 1 + k)) mod 65521 */
  const embedding = (ids: number[], types: number[], mask: number[]) =>
    [0, 1, 2, 3].map((k) =>
      ids.reduce(
        (sum, id, j) =>
          mask[j] ? (sum + ((((id + 50000 * types[j]!) % 65521) * (j + 1 + k)) % 65521)) % 65521 : sum,
        0,
      ),
    );
  const pair = { ids: [101, 2054, 102, 3000, 102], mask: [1, 1, 1, 1, 1] };

  it("counts a token's type id: the same ids as a pair (types 0 0 0 1 1) and as one text differ", async () => {
    const send = (types: number[]) =>
      client.infer('sim_embedder', [
        numericInput('input_ids', 'INT64', [1, 5], pair.ids),
        numericInput('attention_mask', 'INT64', [1, 5], pair.mask),
        numericInput('token_type_ids', 'INT32', [1, 5], types),
      ]);
    const asPair = await send([0, 0, 0, 1, 1]);
    expect(asPair.output('sentence_embedding')).toMatchObject({ datatype: 'FP32', shape: [1, 4] });
    expect(asPair.numbers('sentence_embedding')).toEqual(embedding(pair.ids, [0, 0, 0, 1, 1], pair.mask));
    const single = await send([0, 0, 0, 0, 0]);
    expect(single.numbers('sentence_embedding')).toEqual(embedding(pair.ids, [0, 0, 0, 0, 0], pair.mask));
    expect(single.numbers('sentence_embedding')).not.toEqual(asPair.numbers('sentence_embedding'));
  });

  it('rejects type ids shaped unlike the ids, and keeps serving', async () => {
    await expect(
      client.infer('sim_embedder', [
        numericInput('input_ids', 'INT64', [1, 2], [1, 2]),
        numericInput('attention_mask', 'INT64', [1, 2], [1, 1]),
        numericInput('token_type_ids', 'INT32', [1, 1], [0]),
      ]),
    ).rejects.toThrow(/input 'token_type_ids' must have the shape of 'input_ids', \[1,2\], got \[1,1\]/);
    const ok = await client.infer('sim_embedder', [
      numericInput('input_ids', 'INT64', [1, 1], [5]),
      numericInput('attention_mask', 'INT64', [1, 1], [1]),
      numericInput('token_type_ids', 'INT32', [1, 1], [1]),
    ]);
    expect(ok.numbers('sentence_embedding')).toEqual(embedding([5], [1], [1]));
  });
});
