/**
 * The real tritonserver as the judge of what the generator writes: every pbtxt fixture and its
 * re-printed form are read by Triton's own parser, and a pipeline with hostile tensor names is
 * generated, compiled, loaded and answers a prompt through those names.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
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

/**
 * Loads each model and returns Triton's error per model ('' when it loaded). A config refused
 * while Triton polls the repository only answers "failed to poll from model repository"; the
 * reason is in the server log, so it is appended to that model's error.
 */
async function loadAll(repo: string, models: string[]): Promise<Record<string, string>> {
  const logFile = join(work, `${models.length}-${Date.now()}.log`);
  const server = await startLocalServer({ modelRepository: repo, logFile });
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
  const log = readFileSync(logFile, 'utf8');
  for (const m of models) {
    for (const [, reason] of log.matchAll(
      new RegExp(`Poll failed for model directory '${m}': (.*?)"?$`, 'gm'),
    ))
      if (out[m]) out[m] += ` | ${reason}`;
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
      'trtllm_bls',
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
      const repo = join(work, 'agree-base');
      generateRepository({ pipelinePath: SAMPLE, outDir: repo });
      await buildRepository(repo);
      built = repo; // only once built: a failed build fails every case alike, with its own error
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
  const ensembleSteps = (c: ModelConfig) => c.ensemble_scheduling!.step;

  // Each case: the same mistake made in the pipeline and in a generated repository (by editing
  // the generated configs, as the generator refuses to write it). `model`: whose load Triton
  // refuses (default: the ensemble). Not here because Triton 2.51 loads them (the validator is
  // stricter on purpose): dynamic batching or ragged inputs with max_batch_size 0 (TS-E031), and
  // tensor names with control characters or surrounding spaces (TS-E041).
  const cases: {
    code: string;
    pipeline: (p: Pipeline) => void;
    repository: (repo: string) => void;
    triton: RegExp;
    model?: string;
  }[] = [
    {
      code: 'TS-E014',
      pipeline: (p) =>
        p.wires.splice(
          p.wires.findIndex((w) => w.to === 'sim_llm.input_lengths'),
          1,
        ),
      repository: (r) =>
        editConfig(r, 'gpt2_sim', (c) => {
          delete ensembleSteps(c)[1]!.input_map.input_lengths;
          delete ensembleSteps(c)[0]!.output_map.REQUEST_INPUT_LEN; // unused now: not mapped
        }),
      triton: /input input_lengths in model sim_llm is not mapped to any ensemble tensors/,
    },
    {
      code: 'TS-E015',
      // A second detokenize step also writing text_output.
      pipeline: (p) => {
        p.steps.push({ ...p.steps.find((s) => s.name === 'postprocessing')!, name: 'postprocessing2' });
        p.wires.push(
          { from: 'sim_llm.output_ids', to: 'postprocessing2.TOKENS_BATCH' },
          { from: 'sim_llm.sequence_length', to: 'postprocessing2.SEQUENCE_LENGTH' },
          { from: 'postprocessing2.OUTPUT', to: 'text_output' },
        );
      },
      repository: (r) => {
        cpSync(join(r, 'postprocessing'), join(r, 'postprocessing2'), { recursive: true });
        editConfig(r, 'postprocessing2', (c) => (c.name = 'postprocessing2'));
        editConfig(r, 'gpt2_sim', (c) => {
          const post = ensembleSteps(c)[2]!;
          ensembleSteps(c).push({ ...post, model_name: 'postprocessing2' });
        });
      },
      triton: /ensemble tensor 'text_output' can appear in an output map only once/,
    },
    {
      code: 'TS-E017',
      // preprocessing → sim_llm → postprocessing → loop → preprocessing.
      pipeline: (p) => {
        p.steps.push({
          name: 'loop',
          kind: 'model',
          backend: 'x',
          maxBatchSize: 8,
          inputs: [{ name: 'I', dataType: 'STRING', dims: [-1] }],
          outputs: [{ name: 'O', dataType: 'STRING', dims: [1] }],
        });
        p.steps.find((s) => s.name === 'preprocessing')!.inputs = [
          { name: 'EXTRA', dataType: 'STRING', dims: [1], role: 'badWords' },
        ];
        p.wires.push(
          { from: 'postprocessing.OUTPUT', to: 'loop.I' },
          { from: 'loop.O', to: 'preprocessing.EXTRA' },
        );
      },
      repository: (r) =>
        editConfig(r, 'gpt2_sim', (c) => {
          ensembleSteps(c).push({
            model_name: 'loop',
            model_version: -1,
            input_map: { I: 'text_output' },
            output_map: { O: 'loop_O' },
          });
          ensembleSteps(c)[0]!.input_map.EXTRA = 'loop_O';
        }),
      triton: /output 'text_output' for ensemble 'gpt2_sim' is not written: .* is not connected/,
    },
    {
      code: 'TS-E018',
      pipeline: (p) => p.outputs.push({ name: 'tokens', dataType: 'UINT32', dims: [-1] }),
      repository: (r) =>
        editConfig(r, 'gpt2_sim', (c) =>
          c.output!.push({ name: 'tokens', data_type: 'TYPE_UINT32', dims: [-1] }),
        ),
      triton: /ensemble output 'tokens' for ensemble gpt2_sim' is not used/,
    },
    {
      code: 'TS-E021',
      pipeline: (p) => p.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true }),
      repository: (r) =>
        editConfig(r, 'gpt2_sim', (c) =>
          c.input!.push({ name: 'stream', data_type: 'TYPE_BOOL', dims: [1], optional: true }),
        ),
      triton: /ensemble input 'stream' for ensemble gpt2_sim' is not used/,
    },
    {
      code: 'TS-E031',
      pipeline: (p) => (simStep(p).dynamicBatching = { preferredBatchSizes: [4, 16] }),
      repository: (r) =>
        editConfig(r, 'sim_llm', (c) => (c.dynamic_batching = { preferred_batch_size: [4, 16] })),
      triton: /dynamic batching preferred size must be <= max batch size for sim_llm/,
      model: 'sim_llm',
    },
    {
      code: 'TS-E033',
      pipeline: (p) => (simStep(p).instanceGroups = [{ count: 1, kind: 'CPU', gpus: [0] }]),
      repository: (r) =>
        editConfig(r, 'sim_llm', (c) => (c.instance_group = [{ kind: 'KIND_CPU', count: 1, gpus: [0] }])),
      triton: /instance group sim_llm_0 of model sim_llm has kind KIND_CPU but specifies one or more GPUs/,
      model: 'sim_llm',
    },
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
    expect(errors[c.model ?? 'gpt2_sim']).toMatch(c.triton);
  });

  // TS-W005 is a warning (a GPU server loads the step and gives each GPU an idle instance); on a
  // server without a GPU, Triton refuses it, as the warning says.
  it.skipIf(existsSync('/dev/nvidiactl'))(
    'TS-W005: a server without a GPU refuses a native step with a KIND_GPU instance group',
    async () => {
      const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
      pipeline.steps.find((s) => s.name === 'postprocessing')!.instanceGroups = [{ count: 1, kind: 'GPU' }];
      const ours = validatePipeline(JSON.stringify(pipeline, null, 2), SAMPLE).diagnostics;
      expect(ours.filter((d) => d.severity !== 'info').map((d) => `${d.severity} ${d.code}`)).toEqual([
        'warning TS-W005',
      ]);
      const repo = join(work, 'agree-TS-W005');
      cpSync(await builtSample(), repo, { recursive: true });
      editConfig(repo, 'postprocessing', (c) => (c.instance_group = [{ kind: 'KIND_GPU', count: 1 }]));
      const errors = await loadAll(repo, ['postprocessing']);
      expect(errors.postprocessing).toMatch(/has kind KIND_GPU but no GPUs are available/);
    },
  );
});
