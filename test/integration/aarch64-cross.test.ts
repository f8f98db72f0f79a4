/**
 * Cross-building for aarch64 (NVIDIA Grace: GH200, GB200, DGX Spark), proven on the real aarch64
 * Triton server: nvidia-pytriton's manylinux aarch64 wheel, run here under qemu-user
 * (`npm run setup -- --cross aarch64` installs both). The same pipelines are built twice, for
 * this machine and for aarch64; each build is served by the server of its own architecture, and
 * every answer of the aarch64 server must equal the x86_64 server's byte for byte, streamed
 * chunks included. The aarch64 `ts-tokenize` must match Hugging Face on the parity corpus.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { deployRepository } from '../../client/deploy/index.js';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildBackends, buildRepository } from '../../generator/build/index.js';
import {
  architecture,
  emulationPrefix,
  generateRepository,
  hostArchitecture,
  libraryArchitecture,
  type Pipeline,
} from '../../generator/index.js';
import {
  assembleTokenizers,
  TOKENIZER_NAMES,
  type TokenizerName,
} from '../../scripts/assemble-tokenizers.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

const ROOT = resolve(__dirname, '../..');
const AARCH64 = architecture('aarch64');
const HOST = hostArchitecture();
const ENSEMBLE = 'gpt2_sim';
const STREAMING = 'gpt2_stream';

/** The gpt2-sim sample, and the same with a decoupled sim-llm: served by the native orchestrator. */
function pipelines(): Pipeline[] {
  const sample = JSON.parse(
    readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  ) as Pipeline;
  delete sample.$schema;
  const streaming = structuredClone(sample);
  streaming.name = STREAMING;
  const sim = streaming.steps.find((s) => s.kind === 'model')!;
  sim.decoupled = true;
  sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
  streaming.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
  streaming.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  return [sample, streaming];
}

interface Served {
  server: LocalServer;
  client: TritonClient;
}

let scratch: string;
/** One server per architecture and pipeline, each on the repository built for its architecture. */
const served = new Map<string, Served>();
const on = (arch: 'host' | 'aarch64', pipeline: string): Served => served.get(`${arch}:${pipeline}`)!;
const repoOf = (arch: 'host' | 'aarch64', pipeline: string) => join(scratch, arch, pipeline);

async function serve(repo: string, arch = HOST): Promise<void> {
  const server = await startLocalServer({
    modelRepository: repo,
    arch,
    logFile: `${repo}-tritonserver.log`,
    startupTimeoutMs: 300_000,
  });
  const client = new TritonClient(server.grpcUrl);
  served.set(`${arch === HOST ? 'host' : 'aarch64'}:${repo.split('/').pop()}`, { server, client });
  const deployed = await deployRepository(client, {
    repository: repo,
    mode: 'local',
    serverArch: server.arch,
    readyTimeoutMs: 300_000,
  });
  expect(deployed.models.map((m) => [m.model, m.state, m.error ?? ''])).toEqual(
    deployed.models.map((m) => [m.model, 'ready', '']),
  );
}

/** Every response's text_output, in order, over ModelStreamInfer. */
async function ask(
  target: Served,
  model: string,
  prompt: string,
  maxTokens: number,
  stream: boolean,
): Promise<string[]> {
  const inputs = [
    bytesInput('text_input', [1, 1], [prompt]),
    numericInput('max_tokens', 'INT32', [1, 1], [maxTokens]),
  ];
  if (model === STREAMING) inputs.push(numericInput('stream', 'BOOL', [1, 1], [stream]));
  const chunks: string[] = [];
  for await (const r of target.client.streamInfer(model, inputs, { timeoutMs: 300_000 })) {
    if (r.outputs.has('text_output')) chunks.push(r.strings('text_output').join(''));
  }
  return chunks;
}

const PROMPTS: [string, number][] = [
  ['Triton Studio serves LLMs without Python.', 16],
  ['   Hello, world!  ', 7],
  ['héllo 你好 🤗 naïve café', 23],
  ['def f(x):\n\treturn x * 2\n', 12],
];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'ts-aarch64-'));
  for (const pipeline of pipelines()) {
    const file = join(scratch, `${pipeline.name}.pipeline.json`);
    writeFileSync(file, JSON.stringify(pipeline));
    for (const arch of ['host', 'aarch64'] as const) {
      const repo = repoOf(arch, pipeline.name);
      const generated = generateRepository({ pipelinePath: file, outDir: repo });
      expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      await buildRepository(repo, arch === 'aarch64' ? { arch: AARCH64 } : {});
      await serve(repo, arch === 'aarch64' ? AARCH64 : HOST);
    }
  }
}, 1_500_000);

afterAll(async () => {
  for (const s of served.values()) {
    s.client.close();
    await s.server.stop();
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('a pipeline cross-built for aarch64, on the aarch64 tritonserver (qemu-user)', () => {
  it('builds every library for AArch64 and the server runs as aarch64', () => {
    expect(on('aarch64', ENSEMBLE).server.arch.arch).toBe('aarch64');
    const libraries: [string, string][] = [
      [ENSEMBLE, 'preprocessing'],
      [ENSEMBLE, 'postprocessing'],
      [ENSEMBLE, 'sim_llm'],
      [STREAMING, STREAMING],
    ];
    for (const [pipeline, model] of libraries) {
      const bytes = readFileSync(join(repoOf('aarch64', pipeline), model, '1', `libtriton_${model}.so`));
      expect([model, libraryArchitecture(bytes)?.arch]).toEqual([model, 'aarch64']);
    }
  });

  it.each(PROMPTS)('ensemble answers %j as the x86_64 server does', async (prompt, maxTokens) => {
    const host = await ask(on('host', ENSEMBLE), ENSEMBLE, prompt, maxTokens, false);
    const arm = await ask(on('aarch64', ENSEMBLE), ENSEMBLE, prompt, maxTokens, false);
    expect(host.join('').length).toBeGreaterThan(0);
    expect(arm).toEqual(host);
  });

  it.each(PROMPTS)(
    'orchestrator streams %j chunk for chunk as the x86_64 server does',
    async (prompt, maxTokens) => {
      const host = await ask(on('host', STREAMING), STREAMING, prompt, maxTokens, true);
      const arm = await ask(on('aarch64', STREAMING), STREAMING, prompt, maxTokens, true);
      expect(host.filter((c) => c !== '').length).toBeGreaterThan(1);
      expect(arm).toEqual(host);
    },
  );

  it('refuses to deploy the x86_64 build to the aarch64 server, naming the --arch to rebuild with', async () => {
    const result = await deployRepository(on('aarch64', ENSEMBLE).client, {
      repository: repoOf('host', ENSEMBLE),
      mode: 'remote',
      serverArch: AARCH64,
    });
    expect(result.outcome).toBe('refused');
    const errors = result.models.map((m) => m.error ?? '').join('\n');
    expect(errors).toMatch(
      /libtriton_preprocessing\.so is built for x86_64 \(x86-64\), but the server runs aarch64 \(AArch64\): rebuild it with `triton-studio build REPO --arch aarch64`/,
    );
  });
});

// Every 8th corpus entry in CI (emulation is ~10x slower than native); TS_AARCH64_FULL_CORPUS=1
// checks them all (docs/GPU.md records that run).
const FULL = process.env.TS_AARCH64_FULL_CORPUS === '1';

describe(`aarch64 ts-tokenize (qemu-user) matches HF tokenizers on the ${FULL ? 'full' : 'sampled'} corpus`, () => {
  let binary = '';
  let files = {} as Record<TokenizerName, string>;
  let corpus: ParityInput[] = [];
  beforeAll(async () => {
    const backends = await buildBackends({ arch: AARCH64, targets: ['ts-tokenize'] });
    binary = join(backends.buildDir, 'tools', 'ts-tokenize');
    files = await assembleTokenizers();
    corpus = loadCorpus().filter((_, i) => FULL || i % 8 === 0);
  }, 900_000);
  for (const name of TOKENIZER_NAMES) {
    it(`${name}`, async () => {
      const m = await checkParity(binary, files[name], corpus, {
        addSpecialTokens: true,
        skipSpecialTokens: false,
        launcher: emulationPrefix(AARCH64),
      });
      expect(m, describeMismatches(m)).toEqual([]);
    });
  }
});
