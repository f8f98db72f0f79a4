/**
 * The encoder samples end to end on the real tritonserver: bge-embedding-onnx (one text per row)
 * and ms-marco-reranker-onnx (a query and a passage per row), each generated from its pipeline
 * file and built, the ONNX model step swapped for sim-llm's encoder interface (same tensors) with
 * `record_requests` on, so the test sees exactly what the model step received. That must equal
 * Hugging Face's `tokenizers` (npm) encoding of the same rows with the same truncation — the
 * sample's own (512, longest_first), and a pipeline override (`max_length` 16) — padded to the
 * batch's longest row; the model's outputs must have the preset's dtype and shape and follow
 * from those tensors.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesInput, TritonClient, type InferResult } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { formatDiagnostic, generateRepository, findPreset, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { withEncoderSettings } from '../../bench/tokenizers/encoder-parity.js';
import { removeScratchTokenizers } from '../../bench/tokenizers/scratch.js';
import { runCli } from './run-cli.js';

afterAll(removeScratchTokenizers);

const SAMPLES = resolve(__dirname, '../../samples');
const work = mkdtempSync(join(tmpdir(), 'ts-encoder-samples-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Row {
  text: string;
  pair?: string;
}

interface Received {
  datatype: string;
  shape: number[];
  data: number[];
}

/**
 * The sample copied with its model step on sim-llm (recording) and `parameters` on its tokenize
 * step; with `lengths`, the tokenize step's `input_length` is an ensemble output too.
 */
function prepare(
  sample: string,
  modelStep: string,
  parameters?: Record<string, string | number>,
  lengths = false,
) {
  const dir = join(work, `${sample}-${parameters ? 'override' : 'own'}`);
  cpSync(join(SAMPLES, sample), dir, { recursive: true });
  const file = join(dir, `${sample}.pipeline.json`);
  const pipeline = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  const record = join(dir, 'received.jsonl');
  for (const step of pipeline.steps) {
    if (step.name === modelStep) {
      step.backend = 'sim_llm'; // the one line that swaps an onnxruntime_onnx preset for the CPU stand-in
      step.files = [];
      step.parameters = { ...step.parameters, record_requests: record };
    }
    if (step.kind === 'tokenize' && parameters) step.parameters = { ...step.parameters, ...parameters };
    if (step.kind === 'tokenize' && lengths) {
      const preset = findPreset(step.preset!)!.template.outputs!;
      step.outputs = [...preset, { name: 'input_length', dataType: 'INT32', dims: [1], role: 'inputLength' }];
      pipeline.outputs.push({ name: 'lengths', dataType: 'INT32', dims: [1] });
      pipeline.wires.push({ from: `${step.name}.input_length`, to: 'lengths' });
    }
  }
  writeFileSync(file, JSON.stringify(pipeline, null, 2));
  return { file, record, repo: join(dir, 'repo') };
}

/** How HF is set for the comparison: the cut, its direction, and padding to a multiple. */
interface HfSettings {
  maxLength: number;
  direction?: 'Left' | 'Right';
  multipleOf?: number;
}

/**
 * Hugging Face's encoding of the rows: cut at `maxLength` (LongestFirst), then every row padded
 * right (BERT's [PAD], id 0) to the longest, rounded up to `multipleOf` — HF's Encoding.pad to the
 * length its pad_encodings computes (the npm binding pads single encodings only).
 */
async function huggingFace(tokenizerFile: string, rows: Row[], settings: HfSettings) {
  const file = withEncoderSettings(tokenizerFile, {
    truncation: {
      max_length: settings.maxLength,
      stride: 0,
      strategy: 'LongestFirst',
      direction: settings.direction ?? 'Right',
    },
    padding: null,
  });
  const hf = await Tokenizer.fromFile(file);
  const encodings = [];
  for (const r of rows) encodings.push(await hf.encode(r.text, r.pair ?? null));
  const lengths = encodings.map((e) => e.getLength());
  const multiple = settings.multipleOf ?? 1;
  const width = Math.ceil(Math.max(...lengths) / multiple) * multiple;
  for (const e of encodings) e.pad(width, { direction: 'right', padId: 0, padTypeId: 0, padToken: '[PAD]' });
  return {
    width,
    lengths,
    input_ids: encodings.flatMap((e) => e.getIds()),
    token_type_ids: encodings.flatMap((e) => e.getTypeIds()),
    attention_mask: encodings.flatMap((e) => e.getAttentionMask()),
  };
}

/** sim-llm's encoder: out[k] = Σ over unmasked j of (id_j + 50000·type_j)·(j+1+k) mod 65521. */
function simOutput(ids: number[], types: number[], mask: number[], width: number, n: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < ids.length / width; r++) {
    for (let k = 0; k < n; k++) {
      let sum = 0;
      for (let j = 0; j < width; j++) {
        const at = r * width + j;
        if (mask[at])
          sum = (sum + ((((ids[at]! + 50000 * types[at]!) % 65521) * (j + 1 + k)) % 65521)) % 65521;
      }
      out.push(sum);
    }
  }
  return out;
}

/**
 * Generates, builds and serves the prepared sample, sends one request of `rows`, and checks what
 * the model step received and answered against HF set as `settings`.
 */
async function serveAndCheck(
  prepared: ReturnType<typeof prepare>,
  rows: Row[],
  settings: HfSettings,
  send: (client: TritonClient, ensemble: string) => Promise<InferResult>,
  output: { name: string; width: number },
  after?: (
    client: TritonClient,
    ensemble: string,
    url: string,
    result: InferResult,
    want: Awaited<ReturnType<typeof huggingFace>>,
  ) => Promise<void>,
) {
  const generated = generateRepository({ pipelinePath: prepared.file, outDir: prepared.repo });
  expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  await buildRepository(prepared.repo);
  const tokenizer = resolveTokenizer('bert-base-uncased', prepared.file, defaultTokenizerSearchDirs()).file!;
  const want = await huggingFace(tokenizer, rows, settings);
  const server = await startLocalServer({ modelRepository: prepared.repo, logFile: `${prepared.repo}.log` });
  const client = new TritonClient(server.grpcUrl);
  try {
    for (const m of generated.models) await client.loadModel(m.name);
    const result = await send(client, generated.ensembleName!);
    expect(existsSync(prepared.record)).toBe(true);
    const lines = readFileSync(prepared.record, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1); // one request, all rows in it
    const got = (JSON.parse(lines[0]!) as { inputs: Record<string, Received> }).inputs;
    for (const name of ['input_ids', 'token_type_ids', 'attention_mask'] as const) {
      expect(got[name], name).toEqual({
        datatype: 'INT64',
        shape: [rows.length, want.width],
        data: want[name],
      });
    }
    expect(result.output(output.name)).toMatchObject({
      datatype: 'FP32',
      shape: [rows.length, output.width],
    });
    expect(result.numbers(output.name)).toEqual(
      simOutput(want.input_ids, want.token_type_ids, want.attention_mask, want.width, output.width),
    );
    await after?.(client, generated.ensembleName!, server.grpcUrl, result, want);
    return want;
  } finally {
    client.close();
    await server.stop();
  }
}

const LONG =
  'Triton serves many models at once, and each model step receives tensors of a fixed data type and shape; ' +
  'a tokenizer in front of an encoder must cut and pad exactly as the model was trained to expect. ';

describe('bge-embedding-onnx on the real server', () => {
  const rows: Row[] = [
    { text: 'A warm, funny and beautifully acted film.' },
    { text: 'Short.' },
    { text: LONG.repeat(20) }, // ~760 tokens: cut at the sample's max_length 512
    { text: 'naïve café, déjà vu — ünïcödé 🙂 and [brackets]' },
  ];
  const send = (client: TritonClient, ensemble: string) =>
    client.infer(ensemble, [
      bytesInput(
        'text',
        [rows.length, 1],
        rows.map((r) => r.text),
      ),
    ]);
  const embedding = { name: 'sentence_embedding', width: 384 };

  it('gives the embedder the ids, type ids and masks HF makes (cut at 512), and 384-wide FP32 embeddings', async () => {
    const want = await serveAndCheck(
      prepare('bge-embedding-onnx', 'embedder'),
      rows,
      { maxLength: 512 },
      send,
      embedding,
      async (_client, ensemble, url, batch) => {
        // `triton-studio prompt` knows the pipeline is an embedding model from its config alone; a
        // row alone embeds as it did in the batch (padding is masked).
        const run = await runCli(['prompt', rows[0]!.text, '--url', url, '--model', ensemble, '--json']);
        expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(/^latency /)]);
        const printed = JSON.parse(run.stdout) as { kind: string; embedding: number[] };
        expect(printed.kind).toBe('embedding');
        expect(printed.embedding).toEqual(batch.numbers('sentence_embedding').slice(0, 384));
        const text = await runCli(['prompt', 'Short.', '--url', url, '--model', ensemble]);
        expect(text.stdout).toMatch(/^384 dims, L2 norm [0-9.]+: \[[0-9.]+, /);
        const pair = await runCli(['prompt', 'Short.', '--pair', 'x', '--url', url, '--model', ensemble]);
        expect([pair.code, pair.stderr]).toEqual([
          2,
          expect.stringContaining('--pair is for reranker pipelines'),
        ]);
      },
    );
    expect(want.lengths[2]).toBe(512);
    expect(new Set(want.lengths).size).toBe(rows.length); // different lengths: padding is exercised
  });

  it('with "max_length": 12 cut from the left and rows padded to a multiple of 8, as HF does', async () => {
    const overrides = { max_length: 12, truncation_direction: 'left', pad_to_multiple_of: 8 };
    const prepared = prepare('bge-embedding-onnx', 'embedder', overrides, true);
    const want = await serveAndCheck(
      prepared,
      rows,
      { maxLength: 12, direction: 'Left', multipleOf: 8 },
      send,
      embedding,
      async (_client, _ensemble, _url, batch, hf) => {
        // input_length counts each row's real tokens, not the padding the tokenizer added.
        expect(batch.numbers('lengths')).toEqual(hf.lengths);
      },
    );
    expect(want.lengths).toContain(12);
    expect(want.width).toBe(16); // 12 rounded up to 8's multiple
  });
});

describe('ms-marco-reranker-onnx on the real server', () => {
  const queries = ['what is a tokenizer?', 'capital of France', 'how do rerankers score passages'];
  const passages = ['A tokenizer splits text into ids for a model to read.', 'Paris', LONG.repeat(20)]; // ~760 tokens: the sample sets no max_length: cut at the model's 512 positions
  const rows: Row[] = queries.map((q, i) => ({ text: q, pair: passages[i]! }));
  const send = (client: TritonClient, ensemble: string) =>
    client.infer(ensemble, [
      bytesInput('query', [rows.length, 1], queries),
      bytesInput('passage', [rows.length, 1], passages),
    ]);

  it('gives the reranker query/passage pairs encoded as HF does (type ids 1 for the passage), one logit each', async () => {
    const want = await serveAndCheck(
      prepare('ms-marco-reranker-onnx', 'reranker'),
      rows,
      { maxLength: 512 },
      send,
      { name: 'logits', width: 1 },
      async (_client, ensemble, url, batch) => {
        // `triton-studio prompt QUERY --pair P…`: every passage scored against the query in one
        // request; (query 0, passage 0) scores as row 0 did in the batch, the ranking is by score.
        const args = ['prompt', queries[0]!, ...passages.flatMap((p) => ['--pair', p]), '--url', url];
        const run = await runCli([...args, '--model', ensemble, '--json']);
        expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(/^latency /)]);
        const printed = JSON.parse(run.stdout) as { kind: string; scores: number[]; ranking: number[] };
        expect(printed.kind).toBe('reranker');
        expect(printed.scores).toHaveLength(passages.length);
        expect(printed.scores[0]).toBe(batch.numbers('logits')[0]);
        const byScore = [...printed.ranking].map((i) => printed.scores[i]!);
        expect(byScore).toEqual([...printed.scores].sort((a, b) => b - a));
        const none = await runCli(['prompt', queries[0]!, '--url', url, '--model', ensemble]);
        expect([none.code, none.stderr]).toEqual([
          2,
          expect.stringContaining('give each with --pair PASSAGE'),
        ]);
      },
    );
    expect(want.token_type_ids).toContain(1);
    expect(want.lengths[2]).toBe(512); // default_max_length from the model preset's max_position_embeddings
  });

  it('with "max_length": 16 on the tokenize step cuts the long passage as HF does (longest_first)', async () => {
    const prepared = prepare('ms-marco-reranker-onnx', 'reranker', { max_length: 16 });
    const want = await serveAndCheck(
      prepared,
      rows,
      { maxLength: 16 },
      send,
      { name: 'logits', width: 1 },
      async (client, ensemble) => {
        // A strategy that does not exist (written past validation): the step refuses to load, naming it.
        const config = join(prepared.repo, 'tokenize', 'config.pbtxt');
        const good = readFileSync(config, 'utf8');
        writeFileSync(
          config,
          `${good}\nparameters { key: "truncation_strategy" value { string_value: "longest" } }\n`,
        );
        await expect(client.loadModel('tokenize')).rejects.toThrow(
          /parameter 'truncation_strategy' is 'longest'; use one of longest_first, only_first, only_second/,
        );
        writeFileSync(config, good);
        await client.loadModel('tokenize');
        expect((await send(client, ensemble)).output('logits').shape).toEqual([rows.length, 1]);
      },
    );
    expect(want.width).toBe(16);
    expect(Math.max(...want.lengths)).toBe(16);
  });
});
