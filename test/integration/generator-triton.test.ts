/**
 * The real tritonserver as the judge of what the generator writes: every pbtxt fixture and its
 * re-printed form are read by Triton's own parser, and a pipeline with hostile tensor names is
 * generated, compiled, loaded and answers a prompt through those names.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import {
  formatDiagnostic,
  generateRepository,
  parsePbtxt,
  printPbtxt,
  validatePipeline,
  type ModelConfig,
  type Pipeline,
} from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { HOSTILE, hostilePipeline } from '../fixtures/pipelines/hostile.js';

const PBTXT = resolve(__dirname, '../fixtures/pbtxt');
const work = mkdtempSync(join(tmpdir(), 'ts-gen-triton-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Loads each model and returns Triton's error per model ('' when it loaded). */
async function loadAll(repo: string, models: string[]): Promise<Record<string, string>> {
  const server = await startLocalServer({
    modelRepository: repo,
    logFile: join(work, `${models.length}-${Date.now()}.log`),
  });
  const client = new TritonClient(server.grpcUrl);
  const out: Record<string, string> = {};
  try {
    for (const m of models) {
      try {
        await client.loadModel(m);
        out[m] = '';
      } catch (e) {
        out[m] = (e as Error).message;
      }
    }
  } finally {
    client.close();
    await server.stop();
  }
  return out;
}

describe('Triton reads what the pbtxt writer prints', () => {
  // Fixtures whose models share names go into separate repositories.
  const groups = [
    [
      'tensorrt_llm',
      'trtllm_preprocessing',
      'trtllm_postprocessing',
      'trtllm_ensemble',
      'vllm_model',
      'onnx_bert',
    ],
    ['ft_gptj_fastertransformer', 'ft_gptj_preprocessing', 'ft_gptj_postprocessing', 'ft_gptj_ensemble'],
  ];

  it('covers every fixture', () => {
    const all = readdirSync(PBTXT)
      .filter((f) => f.endsWith('.pbtxt'))
      .map((f) => f.replace(/\.pbtxt$/, ''));
    // sequence_stateful needs a repository agent Triton does not ship here; its text is covered by the unit tests.
    expect([...groups.flat(), 'sequence_stateful'].sort()).toEqual(all.sort());
  });

  it.each(groups.map((g, i) => [i, g] as const))(
    'group %i: original and re-printed configs load past config parsing',
    async (i, group) => {
      for (const form of ['original', 'printed'] as const) {
        const repo = join(work, `pbtxt-${i}-${form}`);
        const names: string[] = [];
        for (const fixture of group) {
          const text = readFileSync(join(PBTXT, `${fixture}.pbtxt`), 'utf8');
          const config = parsePbtxt(text).config!;
          const name = config.name ?? fixture;
          mkdirSync(join(repo, name, '1'), { recursive: true });
          writeFileSync(join(repo, name, 'config.pbtxt'), form === 'original' ? text : printPbtxt(config));
          names.push(name);
        }
        const errors = await loadAll(repo, names);
        for (const [model, error] of Object.entries(errors)) {
          // Only what lies beyond the config may be missing here: backend libraries, the Python stub, dependencies.
          expect(error, `${form} ${model}`).toMatch(
            /unable to find backend library|triton_python_backend_stub is not found|depends on '.*' which has no loaded version/,
          );
          expect(error).not.toMatch(/failed to poll|parse|text proto/i);
        }
      }
    },
  );
});

describe('hostile tensor names end to end', () => {
  it('generate, compile, load and answer through names full of quotes, backslashes, */ and #include', async () => {
    const dir = join(work, 'hostile');
    mkdirSync(dir);
    const file = join(dir, 'hostile.pipeline.json');
    writeFileSync(file, JSON.stringify(hostilePipeline(), null, 2));
    const repo = join(work, 'hostile-repo');
    const r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    await buildRepository(repo);

    const server = await startLocalServer({ modelRepository: repo, logFile: join(work, 'hostile.log') });
    const client = new TritonClient(server.grpcUrl);
    try {
      for (const m of ['preprocessing', 'sim_llm', 'postprocessing', 'gpt2_sim']) await client.loadModel(m);
      const prompt = 'Names are data, not code.';
      const result = await client.infer('gpt2_sim', [
        bytesInput('text_input', [1, 1], [prompt]),
        {
          name: 'max_tokens',
          datatype: 'INT32',
          shape: [1, 1],
          raw: Buffer.from(new Int32Array([5]).buffer),
        },
      ]);
      const hf = await Tokenizer.fromFile(resolveTokenizer('gpt2', file, defaultTokenizerSearchDirs()).file!);
      const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
      const expected = await hf.decode(
        Array.from({ length: 5 }, (_, i) => ids[i % ids.length]!),
        true,
      );
      expect(result.strings(HOSTILE.unicode)).toEqual([expected]);
    } finally {
      client.close();
      await server.stop();
    }
  });
});

describe('what the validator rejects, Triton rejects', () => {
  const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
  let built: string | undefined;

  /** The gpt2-sim repository, generated and compiled once. */
  async function builtSample(): Promise<string> {
    if (!built) {
      built = join(work, 'agree-base');
      generateRepository({ pipelinePath: SAMPLE, outDir: built });
      await buildRepository(built);
    }
    return built;
  }

  function editConfig(repo: string, model: string, change: (c: ModelConfig) => void): void {
    const file = join(repo, model, 'config.pbtxt');
    const config = parsePbtxt(readFileSync(file, 'utf8')).config!;
    change(config);
    writeFileSync(file, printPbtxt(config));
  }

  const simStep = (p: Pipeline) => p.steps.find((s) => s.name === 'sim_llm')!;

  // Each case: the same mistake made in the pipeline and in a generated repository.
  const cases: {
    code: string;
    pipeline: (p: Pipeline) => void;
    repository: (repo: string) => void;
    triton: RegExp;
  }[] = [
    {
      code: 'TS-E012',
      pipeline: (p) => (simStep(p).inputs = [{ name: 'input_ids', dataType: 'INT32', dims: [-1] }]),
      repository: (r) => editConfig(r, 'sim_llm', (c) => (c.input![0]!.data_type = 'TYPE_INT32')),
      triton: /inconsistent data type: TYPE_UINT32 is inferred from model preprocessing while TYPE_INT32/,
    },
    {
      code: 'TS-E013',
      pipeline: (p) => (simStep(p).outputs = [{ name: 'output_ids', dataType: 'UINT32', dims: [-1] }]),
      repository: (r) => editConfig(r, 'sim_llm', (c) => (c.output![0]!.dims = [-1])),
      triton: /inconsistent shape: \[-1,-1\] is inferred from model sim_llm while \[-1,-1,-1\]/,
    },
    {
      code: 'TS-E030',
      pipeline: (p) => (simStep(p).maxBatchSize = 4),
      repository: (r) => editConfig(r, 'sim_llm', (c) => (c.max_batch_size = 4)),
      triton:
        /allows maximum batch size 8, but it contains model sim_llm which only allows maximum batch size to be 4/,
    },
    {
      code: 'TS-E032',
      pipeline: (p) => {
        simStep(p).decoupled = true;
        p.steps.push({ ...simStep(p), name: 'sim_llm2' });
        p.wires.push(
          { from: 'preprocessing.INPUT_ID', to: 'sim_llm2.input_ids' },
          { from: 'preprocessing.REQUEST_INPUT_LEN', to: 'sim_llm2.input_lengths' },
          { from: 'preprocessing.REQUEST_OUTPUT_LEN', to: 'sim_llm2.request_output_len' },
        );
        p.wires.find((w) => w.to === 'postprocessing.SEQUENCE_LENGTH')!.from = 'sim_llm2.sequence_length';
      },
      repository: (r) => {
        editConfig(r, 'sim_llm', (c) => (c.model_transaction_policy = { decoupled: true }));
        cpSync(join(r, 'sim_llm'), join(r, 'sim_llm2'), { recursive: true });
        editConfig(r, 'sim_llm2', (c) => (c.name = 'sim_llm2'));
        editConfig(r, 'gpt2_sim', (c) => {
          const steps = c.ensemble_scheduling!.step;
          steps.push({
            model_name: 'sim_llm2',
            model_version: -1,
            input_map: { ...steps[1]!.input_map },
            output_map: { sequence_length: 'sim_llm2_sequence_length' },
          });
          steps[2]!.input_map.SEQUENCE_LENGTH = 'sim_llm2_sequence_length';
          steps[1]!.output_map = { output_ids: steps[1]!.output_map.output_ids! };
        });
      },
      triton: /receives inputs originated from different decoupled models/,
    },
  ];

  it.each(cases)('$code', async (c) => {
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
    c.pipeline(pipeline);
    const ours = validatePipeline(JSON.stringify(pipeline, null, 2), SAMPLE).diagnostics.filter(
      (d) => d.severity === 'error',
    );
    expect(ours.map((d) => d.code)).toEqual([c.code]);

    const repo = join(work, `agree-${c.code}`);
    cpSync(await builtSample(), repo, { recursive: true });
    c.repository(repo);
    const models = readdirSync(repo).filter((m) => m !== 'gpt2_sim' && !m.endsWith('.json'));
    const errors = await loadAll(repo, [...models, 'gpt2_sim']);
    expect(errors.gpt2_sim).toMatch(c.triton);
  });
});
