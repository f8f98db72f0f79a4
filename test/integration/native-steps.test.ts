/**
 * Native steps end to end: NativeStepModels rendered by the C++ printer into a hand-written
 * repository (test/fixtures/native-steps/repo), compiled with CMake, served by the real
 * tritonserver and called over HTTP/JSON. Expected ids and text come from Hugging Face's own
 * `tokenizers` library, never from the code under test.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureSteps, HOSTILE_MODEL, HOSTILE_TENSOR } from '../fixtures/native-steps/steps.js';
import {
  echo,
  GPT2_EOS,
  hf,
  hfIds,
  infer,
  ints,
  native,
  post,
  strings,
  type Tensor,
  useNativeStepsServer,
} from './native-steps-fixture.js';

useNativeStepsServer();

describe('building the repository', () => {
  it('compiles every step into libtriton_<model>.so and places sim-llm, all in version folder 1', () => {
    const byModel = Object.fromEntries(native.built.map((b) => [b.model, b]));
    for (const step of fixtureSteps) {
      expect(byModel[step.modelName]?.kind).toBe('step');
      expect(byModel[step.modelName]?.library).toBe(
        join(native.repo, step.modelName, '1', `libtriton_${step.modelName}.so`),
      );
    }
    expect(byModel.sim_llm?.library).toBe(join(native.repo, 'sim_llm', '1', 'libtriton_sim_llm.so'));
    expect(byModel.gpt2_sim).toBeUndefined(); // an ensemble has nothing to build
  });
});

describe('loading a step model', () => {
  it('fails with the tokenizer path and what to do when the tokenizer file is missing', async () => {
    const { status, json } = await post('/v2/repository/models/missing_tokenizer/load');
    expect(status).toBe(400);
    expect(String(json.error)).toContain(
      `cannot load model 'missing_tokenizer': cannot load tokenizer '${join(native.repo, 'missing_tokenizer', '1', 'tokenizer.json')}'`,
    );
    expect(String(json.error)).toMatch(/ships in the model's version folder; regenerate the repository/);
  });

  it('fails, naming the tensor, when config.pbtxt no longer matches the generated step', async () => {
    const { status, json } = await post('/v2/repository/models/stale_config/load');
    expect(status).toBe(400);
    expect(String(json.error)).toContain(
      "config.pbtxt declares output 'ids' as INT64 but the generated step was built for UINT32; regenerate and rebuild the step",
    );
  });
});

describe('tokenize step', () => {
  const prompts = [
    'Hello world',
    '  leading spaces and  double  spaces ',
    'Unicode: café, 名前, emoji 🙂',
    'def f():\n\treturn 1\n',
    '',
  ];

  it('gives exactly the ids Hugging Face tokenizers gives, one row per prompt, padded with the end id', async () => {
    const out = await infer('preprocessing', [
      strings('QUERY', prompts),
      ints('REQUEST_OUTPUT_LEN', 'INT32', [1, 2, 3, 4, 5], [5, 1]),
    ]);
    const expected = await Promise.all(prompts.map((p) => hfIds(p)));
    const width = Math.max(...expected.map((e) => e.length));
    expect(out.INPUT_ID?.datatype).toBe('UINT32');
    expect(out.INPUT_ID?.shape).toEqual([5, width]);
    expect(out.INPUT_ID?.data).toEqual(
      expected.flatMap((ids) => [...ids, ...Array(width - ids.length).fill(GPT2_EOS)]),
    );
    expect(out.REQUEST_INPUT_LEN).toMatchObject({
      datatype: 'UINT32',
      shape: [5, 1],
      data: expected.map((e) => e.length),
    });
  });

  it('converts the INT32 output length to the UINT32 the model wants (the ensemble cannot)', async () => {
    const out = await infer('preprocessing', [
      strings('QUERY', ['a', 'b']),
      ints('REQUEST_OUTPUT_LEN', 'INT32', [7, 2147483647], [2, 1]),
    ]);
    expect(out.REQUEST_OUTPUT_LEN).toMatchObject({
      datatype: 'UINT32',
      shape: [2, 1],
      data: [7, 2147483647],
    });
  });

  it('answers concurrent requests (dynamic batching: several requests per Execute) each with its own ids', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `request number ${i} ${'x'.repeat(i)}`);
    const outs = await Promise.all(
      texts.map((t) =>
        infer('preprocessing', [strings('QUERY', [t]), ints('REQUEST_OUTPUT_LEN', 'INT32', [1], [1, 1])]),
      ),
    );
    for (const [i, out] of outs.entries())
      expect(out.INPUT_ID?.data).toEqual(await hfIds(texts[i] as string));
  });

  it('encodes TensorRT-LLM word lists as [batch, 2, L]: flattened ids, cumulative offsets, padded 0 / -1', async () => {
    const bad = [
      ['hello', ' world'],
      ['foo', ''],
    ];
    const out = await infer('trtllm_preprocessing', [
      strings('QUERY', ['first prompt', 'second']),
      ints('REQUEST_OUTPUT_LEN', 'INT32', [4, 5], [2, 1]),
      strings('BAD_WORDS_DICT', bad.flat(), [2, 2]),
    ]);
    const rows = await Promise.all(
      bad.map(async (words) => {
        const ids: number[] = [];
        const offsets: number[] = [];
        for (const word of words) {
          const w = await hfIds(word, false);
          if (w.length === 0) continue;
          ids.push(...w);
          offsets.push(ids.length);
        }
        return { ids, offsets };
      }),
    );
    const width = Math.max(1, ...rows.map((r) => Math.max(r.ids.length, r.offsets.length)));
    const pad = (values: number[], v: number) => [...values, ...Array(width - values.length).fill(v)];
    expect(out.BAD_WORDS_IDS).toMatchObject({
      datatype: 'INT32',
      shape: [2, 2, width],
      data: rows.flatMap((r) => [...pad(r.ids, 0), ...pad(r.offsets, -1)]),
    });
    // No stop words sent: every row is "no words", still a well-formed [2, 2, 1].
    expect(out.STOP_WORDS_IDS).toMatchObject({ shape: [2, 2, 1], data: [0, -1, 0, -1] });
    expect(out.OUT_END_ID).toMatchObject({ datatype: 'INT32', shape: [2, 1], data: [GPT2_EOS, GPT2_EOS] });
    expect(out.OUT_PAD_ID).toMatchObject({ datatype: 'INT32', shape: [2, 1], data: [GPT2_EOS, GPT2_EOS] });
    expect(out.INPUT_ID?.datatype).toBe('INT32');
    expect(out.REQUEST_OUTPUT_LEN).toMatchObject({ datatype: 'INT32', data: [4, 5] });
    // No embedding-bias words sent: an empty [rows, 0] bias, as TensorRT-LLM's preprocessing gives.
    expect(out.EMBEDDING_BIAS).toMatchObject({ datatype: 'FP32', shape: [2, 0] });
  });

  it("passes the client's END_ID / PAD_ID through and sums embedding-bias weights at each word's ids", async () => {
    const words = [
      ['hello', ' world hello'],
      ['foo', ''],
    ];
    const weights = [
      [1.5, -2],
      [0.25, 3],
    ];
    const out = await infer('trtllm_preprocessing', [
      strings('QUERY', ['first prompt', 'second']),
      ints('REQUEST_OUTPUT_LEN', 'INT32', [4, 5], [2, 1]),
      ints('END_ID', 'INT32', [7, 8], [2, 1]),
      ints('PAD_ID', 'INT32', [9, 10], [2, 1]),
      strings('EMBEDDING_BIAS_WORDS', words.flat(), [2, 2]),
      ints('EMBEDDING_BIAS_WEIGHTS', 'FP32', weights.flat(), [2, 2]),
    ]);
    expect(out.OUT_END_ID).toMatchObject({ datatype: 'INT32', shape: [2, 1], data: [7, 8] });
    expect(out.OUT_PAD_ID).toMatchObject({ datatype: 'INT32', shape: [2, 1], data: [9, 10] });
    // TensorRT-LLM: a vocabulary-sized row per request row; each word's weight added at every id
    // `tokenizer.encode(word)` gives (a repeated id gets it twice).
    const vocab = hf.getVocabSize(true);
    const expected: number[] = [];
    for (const [r, row] of words.entries()) {
      const bias = new Array<number>(vocab).fill(0);
      for (const [i, word] of row.entries()) {
        for (const id of await hfIds(word, true)) bias[id] = (bias[id] ?? 0) + (weights[r]?.[i] ?? 0);
      }
      expected.push(...bias);
    }
    expect(out.EMBEDDING_BIAS?.shape).toEqual([2, vocab]);
    expect(out.EMBEDDING_BIAS?.data).toEqual(expected);
  });

  it('refuses embedding-bias words without weights (or a count mismatch), naming the inputs, and keeps serving', async () => {
    const base = [strings('QUERY', ['x']), ints('REQUEST_OUTPUT_LEN', 'INT32', [1], [1, 1])];
    await expect(
      infer('trtllm_preprocessing', [...base, strings('EMBEDDING_BIAS_WORDS', ['a'], [1, 1])]),
    ).rejects.toThrow(/'EMBEDDING_BIAS_WORDS' was sent without 'EMBEDDING_BIAS_WEIGHTS'/);
    await expect(
      infer('trtllm_preprocessing', [
        ...base,
        strings('EMBEDDING_BIAS_WORDS', ['a', 'b'], [1, 2]),
        ints('EMBEDDING_BIAS_WEIGHTS', 'FP32', [1], [1, 1]),
      ]),
    ).rejects.toThrow(/'EMBEDDING_BIAS_WORDS' has 2 words per row but 'EMBEDDING_BIAS_WEIGHTS' has 1/);
    const out = await infer('trtllm_preprocessing', base);
    expect(out.OUT_END_ID?.data).toEqual([GPT2_EOS]);
  });

  it('gives encoders an attention mask: 1 per real token, 0 per padding, shaped like the ids', async () => {
    const texts = ['a longer sentence for the encoder', 'short'];
    const out = await infer('encoder_tokenize', [strings('TEXT', texts)]);
    const expected = await Promise.all(texts.map((t) => hfIds(t)));
    const width = Math.max(...expected.map((e) => e.length));
    expect(out.input_ids).toMatchObject({ datatype: 'INT64', shape: [2, width] });
    expect(out.attention_mask).toMatchObject({
      datatype: 'INT64',
      shape: [2, width],
      data: expected.flatMap((ids) => [...ids.map(() => 1), ...Array(width - ids.length).fill(0)]),
    });
  });

  it('encodes query/passage pairs for a cross-encoder as HF: ids, type ids and mask in INT32', async () => {
    const queries = ['what is a tokenizer?', 'capital of France'];
    const passages = ['A tokenizer splits text into ids for a model to read.', 'Paris'];
    const out = await infer('reranker_tokenize', [strings('TEXT', queries), strings('TEXT_PAIR', passages)]);
    const expected = await Promise.all(queries.map((q, i) => hf.encode(q, passages[i]!)));
    const width = Math.max(...expected.map((e) => e.getLength()));
    const pad = (values: number[]) => [...values, ...Array(width - values.length).fill(0)];
    expect(out.input_ids).toMatchObject({ datatype: 'INT32', shape: [2, width] });
    // Padding rows take the tokenizer's pad id (GPT-2 has none: its end-of-text id).
    expect(out.input_ids?.data).toEqual(
      expected.flatMap((e) => [...e.getIds(), ...Array(width - e.getLength()).fill(GPT2_EOS)]),
    );
    expect(out.token_type_ids).toMatchObject({ datatype: 'INT32', shape: [2, width] });
    expect(out.token_type_ids?.data).toEqual(expected.flatMap((e) => pad(e.getTypeIds())));
    expect(out.token_type_ids?.data).toContain(1);
    expect(out.attention_mask?.data).toEqual(expected.flatMap((e) => pad(e.getAttentionMask())));
  });

  it('works without batching, with INT64 ids and a model and tensor name full of C++/CMake metacharacters', async () => {
    const text = 'Names like these must be escaped.';
    const out = await infer(HOSTILE_MODEL, [strings(HOSTILE_TENSOR, [text], [1])]);
    const expected = await hfIds(text, false);
    expect(out.ids).toMatchObject({ datatype: 'INT64', shape: [expected.length], data: expected });
  });

  it('answers a bad request with an error that says what is wrong, and keeps serving', async () => {
    await expect(
      infer('preprocessing', [
        strings('QUERY', ['ok', 'neg']),
        ints('REQUEST_OUTPUT_LEN', 'INT32', [5, -3], [2, 1]),
      ]),
    ).rejects.toThrow(
      /model 'preprocessing': output 'REQUEST_OUTPUT_LEN': value -3 does not fit its unsigned data type/,
    );
    const out = await infer('preprocessing', [
      strings('QUERY', ['still fine']),
      ints('REQUEST_OUTPUT_LEN', 'INT32', [1], [1, 1]),
    ]);
    expect(out.INPUT_ID?.data).toEqual(await hfIds('still fine'));
  });
});

describe('sim-llm', () => {
  it('echoes each prompt cyclically, rows of different lengths in one request', async () => {
    const out = await infer('sim_llm', [
      ints('input_ids', 'UINT32', [11, 12, 13, 14, 21, 22, 0, 0], [2, 4]),
      ints('input_lengths', 'UINT32', [4, 2], [2, 1]),
      ints('request_output_len', 'UINT32', [6, 3], [2, 1]),
    ]);
    expect(out.output_ids).toMatchObject({
      datatype: 'UINT32',
      shape: [2, 1, 6],
      data: [...echo([11, 12, 13, 14], 6), ...echo([21, 22], 3), 0, 0, 0],
    });
    expect(out.sequence_length).toMatchObject({ shape: [2, 1], data: [6, 3] });
  });

  it('rejects an empty prompt with a clear error and keeps serving', async () => {
    await expect(
      infer('sim_llm', [
        ints('input_ids', 'UINT32', [5], [1, 1]),
        ints('input_lengths', 'UINT32', [0], [1, 1]),
        ints('request_output_len', 'UINT32', [3], [1, 1]),
      ]),
    ).rejects.toThrow(/empty prompt/);
    const out = await infer('sim_llm', [
      ints('input_ids', 'UINT32', [5], [1, 1]),
      ints('input_lengths', 'UINT32', [1], [1, 1]),
      ints('request_output_len', 'UINT32', [3], [1, 1]),
    ]);
    expect(out.output_ids?.data).toEqual([5, 5, 5]);
  });
});

describe('detokenize step', () => {
  it('decodes [batch, beam, seq] cut at each SEQUENCE_LENGTH exactly as Hugging Face decodes', async () => {
    const a = await hfIds('The quick brown fox');
    const b = await hfIds(' jumps over café 🙂');
    const seq = Math.max(a.length, b.length);
    const padded = (ids: number[]) => [...ids, ...Array(seq - ids.length).fill(GPT2_EOS)];
    const cut = b.length - 2; // ends inside the emoji's bytes: decoded the way HF decodes it
    const out = await infer('postprocessing', [
      ints('TOKENS_BATCH', 'UINT32', [...padded(a), ...padded(b)], [2, 1, seq]),
      ints('SEQUENCE_LENGTH', 'UINT32', [a.length, cut], [2, 1]),
    ]);
    expect(out.OUTPUT).toMatchObject({
      datatype: 'BYTES',
      shape: [2, 1],
      data: [await hf.decode(a, true), await hf.decode(b.slice(0, cut), true)],
    });
  });

  it('decodes [batch, seq] ids without sequence lengths, keeping special tokens when configured to', async () => {
    const a = [...(await hfIds('first text')), GPT2_EOS];
    const b = await hfIds('second, longer text here');
    const seq = Math.max(a.length, b.length);
    // Without SEQUENCE_LENGTH every id counts, so the shorter row's padding is decoded too.
    const padA = [...a, ...Array(seq - a.length).fill(GPT2_EOS)];
    const padB = [...b, ...Array(seq - b.length).fill(GPT2_EOS)];
    const out = await infer('detok_flat', [ints('IDS', 'INT64', [...padA, ...padB], [2, seq])]);
    expect(out.TEXT).toMatchObject({
      shape: [2, 1],
      data: [await hf.decode(padA, false), await hf.decode(padB, false)],
    });
    expect(String(out.TEXT?.data[0])).toContain('<|endoftext|>');
  });

  it('rejects a token id outside the vocabulary and keeps serving', async () => {
    await expect(
      infer('postprocessing', [
        ints('TOKENS_BATCH', 'UINT32', [464, 999999], [1, 1, 2]),
        ints('SEQUENCE_LENGTH', 'UINT32', [2], [1, 1]),
      ]),
    ).rejects.toThrow(/model 'postprocessing'.*999999/);
    const out = await infer('postprocessing', [
      ints('TOKENS_BATCH', 'UINT32', [464], [1, 1, 1]),
      ints('SEQUENCE_LENGTH', 'UINT32', [1], [1, 1]),
    ]);
    expect(out.OUTPUT?.data).toEqual([await hf.decode([464], true)]);
  });
});

describe('detokenize step behind a streaming model (parameter streaming = true)', () => {
  /** One streamed chunk as the ensemble hands it on: [1, beam 1, n] tokens, under the request's id. */
  async function chunk(ids: number[], id?: string): Promise<string> {
    const { status, json } = await post('/v2/models/postprocessing/infer', {
      ...(id === undefined ? {} : { id }),
      inputs: [
        ints('TOKENS_BATCH', 'UINT32', ids, [1, 1, ids.length]),
        ints('SEQUENCE_LENGTH', 'UINT32', [ids.length], [1, 1]),
      ],
    });
    if (status !== 200) throw new Error(`HTTP ${status}: ${String(json.error)}`);
    return String((json.outputs as Tensor[])[0]!.data[0]);
  }

  async function loadPostprocessing(parameters: Record<string, { string_value: string }>): Promise<void> {
    const config = (await (
      await fetch(`${native.server.httpUrl}/v2/models/postprocessing/config`)
    ).json()) as {
      parameters?: Record<string, unknown>;
    };
    config.parameters = { ...config.parameters, ...parameters };
    const { status, json } = await post('/v2/repository/models/postprocessing/load', {
      parameters: { config: JSON.stringify(config) },
    });
    expect(status, JSON.stringify(json)).toBe(200);
  }

  beforeAll(() => loadPostprocessing({ streaming: { string_value: 'true' } }));
  afterAll(() => loadPostprocessing({ streaming: { string_value: 'false' } }));

  it('continues one decoder per request id, so characters split across chunks come out whole', async () => {
    const text = ' naïve café 🙂 über';
    const ids = await hfIds(text, false);
    const other = await hfIds(' 日本語のテキスト', false);
    // Two streams interleaved, one token per chunk: each must equal its own full decode.
    let a = '';
    let b = '';
    for (let i = 0; i < Math.max(ids.length, other.length); i++) {
      if (i < ids.length) a += await chunk([ids[i]!], 'stream-a');
      if (i < other.length) b += await chunk([other[i]!], 'stream-b');
    }
    expect(a).toBe(await hf.decode(ids, true));
    expect(b).toBe(await hf.decode(other, true));
    expect(a).not.toContain('\ufffd');
  });

  it('decodes a chunk on its own when the request carries no id (a split character shows as U+FFFD)', async () => {
    const ids = await hfIds(' ünï', false);
    expect(ids.length).toBeGreaterThan(1);
    const first = await chunk([ids[0]!]);
    expect(first).toBe(await hf.decode([ids[0]!], true));
    expect(first).toContain('\ufffd');
  });

  it('refuses a stream_idle_timeout_s that is not a positive number, naming it', async () => {
    const config = (await (
      await fetch(`${native.server.httpUrl}/v2/models/postprocessing/config`)
    ).json()) as {
      parameters?: Record<string, unknown>;
    };
    config.parameters = { ...config.parameters, stream_idle_timeout_s: { string_value: '0' } };
    const { status, json } = await post('/v2/repository/models/postprocessing/load', {
      parameters: { config: JSON.stringify(config) },
    });
    expect(status).not.toBe(200);
    expect(String(json.error)).toContain('stream_idle_timeout_s');
  });
});

describe('ensemble text_input -> tokenize -> sim-llm -> detokenize -> text_output', () => {
  it('returns the echo of the prompt, decoded, for max_tokens tokens', async () => {
    const prompt = 'The quick brown fox jumps over the lazy dog';
    const out = await infer('gpt2_sim', [
      strings('text_input', [prompt]),
      ints('max_tokens', 'INT32', [12], [1, 1]),
    ]);
    const expected = await hf.decode(echo(await hfIds(prompt), 12), true);
    expect(out.text_output).toMatchObject({ datatype: 'BYTES', shape: [1, 1], data: [expected] });
  });
});

describe('tokenize step latency', () => {
  const text = 'Triton Studio measures the native tokenize step on a CPU-only machine.';

  /** 200 sequential HTTP requests after a warm-up: client percentiles and server-side means. */
  async function measure(model: string, request: Tensor[]) {
    for (let i = 0; i < 20; i++) await infer(model, request);
    type Stats = { model_stats: { inference_stats: Record<string, { count: number; ns: number }> }[] };
    const stats = async () =>
      (await (await fetch(`${native.server.httpUrl}/v2/models/${model}/stats`)).json()) as Stats;
    // Triton counts a request just after answering it: read the statistics once they settle.
    const settledStats = async () => {
      let last = await stats();
      for (;;) {
        await new Promise((r) => setTimeout(r, 20));
        const again = await stats();
        if (JSON.stringify(again) === JSON.stringify(last)) return last;
        last = again;
      }
    };
    const before = await settledStats();
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const start = performance.now();
      await infer(model, request);
      times.push(performance.now() - start);
    }
    const after = await settledStats();
    const stat = (s: Stats, key: string) => s.model_stats[0]?.inference_stats[key] ?? { count: 0, ns: 0 };
    const delta = (key: string) => ({
      count: stat(after, key).count - stat(before, key).count,
      us: (stat(after, key).ns - stat(before, key).ns) / 1000,
    });
    const perRequestUs = (key: string) => delta(key).us / delta(key).count;
    times.sort((x, y) => x - y);
    const pct = (p: number) =>
      times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] as number;
    console.log(
      `${model}: 200 sequential HTTP requests: client p50 ${pct(50).toFixed(3)} ms, p90 ${pct(90).toFixed(3)} ms, ` +
        `p99 ${pct(99).toFixed(3)} ms; server per request: compute_infer ${perRequestUs('compute_infer').toFixed(1)} us, ` +
        `queue ${perRequestUs('queue').toFixed(1)} us`,
    );
    return { successes: delta('success').count, p50: pct(50) };
  }

  it('answers sequential requests quickly behind a dynamic batcher (500 us queue delay)', async () => {
    const result = await measure('preprocessing', [
      strings('QUERY', [text]),
      ints('REQUEST_OUTPUT_LEN', 'INT32', [8], [1, 1]),
    ]);
    expect(result.successes).toBe(200);
    expect(result.p50).toBeLessThan(50);
  });

  it('answers sequential requests quickly without batching', async () => {
    const result = await measure(HOSTILE_MODEL, [strings(HOSTILE_TENSOR, [text], [1])]);
    expect(result.successes).toBe(200);
    expect(result.p50).toBeLessThan(50);
  });
});
