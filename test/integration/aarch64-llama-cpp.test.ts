/**
 * The llama.cpp step cross-built for aarch64 (against llama.cpp's prebuilt aarch64 libraries from
 * npm @node-llama-cpp/linux-arm64) and served by the real aarch64 Triton server under qemu-user
 * (`npm run setup -- --cross aarch64`): samples/smollm2-llama-cpp with the real SmolLM2-135M
 * loads and answers a factual prompt correctly, and its greedy answer equals the x86_64 server's.
 * Greedy answers of the two CPUs are not equal for every prompt: ggml's aarch64 and x86_64 kernels
 * sum in different orders, so a near tie between two tokens can break differently (measured in
 * docs/GPU.md); the prompt here has no near tie in its first 12 tokens.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import {
  architecture,
  generateRepository,
  hostArchitecture,
  libraryArchitecture,
  type Architecture,
  type Pipeline,
} from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json');
const AARCH64 = architecture('aarch64');
const HOST = hostArchitecture();
const PROMPT = 'The capital of France is';

interface Served {
  repo: string;
  server: LocalServer;
  client: TritonClient;
}
const served = new Map<string, Served>();
let scratch: string;

async function buildAndServe(arch: Architecture, pipelineFile: string): Promise<void> {
  const repo = join(scratch, arch.arch);
  const generated = generateRepository({ pipelinePath: pipelineFile, outDir: repo });
  expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  await buildRepository(repo, { arch });
  const server = await startLocalServer({
    modelRepository: repo,
    arch,
    logFile: `${repo}-tritonserver.log`,
    startupTimeoutMs: 300_000,
  });
  const client = new TritonClient(server.grpcUrl);
  served.set(arch.arch, { repo, server, client });
  const deployed = await deployRepository(client, {
    repository: repo,
    mode: 'local',
    serverArch: server.arch,
    readyTimeoutMs: 300_000,
  });
  expect(deployed.models.map((m) => [m.model, m.state, m.error ?? ''])).toEqual([
    ['llama', 'ready', ''],
    ['smollm2', 'ready', ''],
  ]);
}

/** The pipeline's answer: every text_output, in order. */
async function ask(arch: Architecture, prompt: string, maxTokens: number): Promise<string> {
  const { client } = served.get(arch.arch)!;
  const inputs = [
    bytesInput('text_input', [1, 1], [prompt]),
    numericInput('max_tokens', 'INT32', [1, 1], [maxTokens]),
  ];
  let text = '';
  for await (const r of client.streamInfer('smollm2', inputs, { timeoutMs: 300_000 })) {
    if (r.outputs.has('text_output')) text += r.strings('text_output').join('');
  }
  return text;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'ts-aarch64-llama-'));
  const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
  delete pipeline.$schema;
  const llama = pipeline.steps.find((s) => s.name === 'llama')!;
  llama.parameters = { ...llama.parameters, context_length: '256' };
  const file = join(scratch, 'smollm2.pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline));
  await buildAndServe(AARCH64, file);
  await buildAndServe(HOST, file);
}, 1_200_000);

afterAll(async () => {
  for (const s of served.values()) {
    s.client.close();
    await s.server.stop();
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the llama.cpp step cross-built for aarch64, on the aarch64 tritonserver (qemu-user)', () => {
  it("ships the step with llama.cpp's aarch64 libraries beside it, and the server runs as aarch64", () => {
    const { repo, server } = served.get(AARCH64.arch)!;
    expect(server.arch.arch).toBe('aarch64');
    const folder = join(repo, 'llama', '1');
    const libraries = readdirSync(folder).filter((f) => f.endsWith('.so'));
    expect(libraries).toEqual(
      expect.arrayContaining([
        'libtriton_llama_cpp.so',
        'libllama.v0.5.0.so',
        'libggml-base.so',
        'libggml-cpu-armv8.0_1.so',
      ]),
    );
    expect(libraries.filter((f) => /x64|haswell|zen/.test(f))).toEqual([]);
    for (const library of libraries) {
      expect(libraryArchitecture(readFileSync(join(folder, library)))?.arch, library).toBe('aarch64');
    }
  });

  it('answers a factual prompt correctly, byte for byte as the x86_64 server does', async () => {
    const [onAarch64, onHost] = [await ask(AARCH64, PROMPT, 12), await ask(HOST, PROMPT, 12)];
    expect(onAarch64).toMatch(/^ Paris\b/);
    expect(onAarch64).toBe(onHost);
  }, 300_000);
});
