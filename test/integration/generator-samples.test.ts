/**
 * Every sample, generated and checked against the real tritonserver as far as this machine
 * allows. GPU model steps (FasterTransformer, TensorRT-LLM) are swapped for sim-llm, a CPU
 * stand-in with the same tensor interface (integer ids in, integer ids out), so Triton validates
 * the whole ensemble (dtypes and shapes across every wire) and answers prompts; the answer is
 * checked against Hugging Face's own tokenizer. Steps with no stand-in here (vLLM, ONNX Runtime)
 * must fail only for their missing backend library — never for their config.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesInput, TritonClient } from '../../client/grpc/client.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { formatDiagnostic, generateRepository, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';

const SAMPLES = resolve(__dirname, '../../samples');
const work = mkdtempSync(join(tmpdir(), 'ts-gen-samples-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Case {
  sample: string;
  /** Model steps replaced by sim-llm, with any settings the stand-in needs changed. */
  standIn?: Record<string, { decoupled?: boolean }>;
  /** Model steps with no stand-in: the backend Triton will not find here. */
  unavailable?: Record<string, string>;
  tokenizer: string;
  addSpecialTokens: boolean;
}

const CASES: Case[] = [
  { sample: 'gpt2-sim', tokenizer: 'gpt2', addSpecialTokens: false },
  {
    sample: 'codegen-fastertransformer',
    standIn: { fastertransformer: {} },
    tokenizer: 'codegen-350M-mono',
    addSpecialTokens: false,
  },
  { sample: 'gpt2-tensorrt-llm', standIn: { tensorrt_llm: {} }, tokenizer: 'gpt2', addSpecialTokens: true },
  // Streams one token per response: SentencePiece word-start spaces must survive the chunking.
  {
    sample: 'llama2-tensorrt-llm',
    standIn: { tensorrt_llm: {} },
    tokenizer: 'llama-2',
    addSpecialTokens: true,
  },
  { sample: 'gpt2-vllm', unavailable: { vllm_model: 'vllm' }, tokenizer: 'gpt2', addSpecialTokens: false },
  {
    sample: 'distilbert-onnx',
    unavailable: { distilbert: 'onnxruntime' },
    tokenizer: 'bert-base-uncased',
    addSpecialTokens: true,
  },
];

/** A copy of the sample folder whose pipeline has the stand-ins swapped in. */
function prepare(c: Case): string {
  const dir = join(work, c.sample);
  cpSync(join(SAMPLES, c.sample), dir, { recursive: true });
  const file = join(dir, `${c.sample}.pipeline.json`);
  const pipeline = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  for (const step of pipeline.steps) {
    const standIn = c.standIn?.[step.name];
    if (!standIn) continue;
    step.backend = 'sim_llm';
    step.instanceGroups = [{ count: 1, kind: 'CPU' }];
    if (standIn.decoupled !== undefined) step.decoupled = standIn.decoupled;
  }
  writeFileSync(file, JSON.stringify(pipeline, null, 2));
  return file;
}

async function withServer<T>(
  repo: string,
  fn: (client: TritonClient, server: LocalServer) => Promise<T>,
): Promise<T> {
  const server = await startLocalServer({
    modelRepository: repo,
    logFile: join(repo, '..', `${basename(repo)}.log`),
  });
  const client = new TritonClient(server.grpcUrl);
  try {
    return await fn(client, server);
  } finally {
    client.close();
    await server.stop();
  }
}

async function loadError(client: TritonClient, model: string): Promise<string | undefined> {
  try {
    await client.loadModel(model);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

describe.each(CASES)('sample $sample', (c) => {
  it('generates, builds and loads on the real tritonserver (model step stand-ins where needed)', async () => {
    const pipelineFile = prepare(c);
    const repo = join(work, `${c.sample}-repo`);
    const generated = generateRepository({ pipelinePath: pipelineFile, outDir: repo });
    expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    await buildRepository(repo);
    const ensemble = generated.ensembleName!;
    const steps = generated.models.filter((m) => m.kind !== 'ensemble').map((m) => m.name);
    const tokenizerFile = resolveTokenizer(c.tokenizer, pipelineFile, defaultTokenizerSearchDirs()).file!;
    const hf = await Tokenizer.fromFile(tokenizerFile);

    await withServer(repo, async (client) => {
      for (const step of steps) {
        const error = await loadError(client, step);
        const missing = c.unavailable?.[step];
        if (missing) {
          // Triton read and accepted the config; only the backend library is absent here.
          expect(error).toMatch(new RegExp(`unable to find backend library for backend '${missing}'`));
        } else expect(error, `${step} should load`).toBeUndefined();
      }
      const ensembleError = await loadError(client, ensemble);
      if (c.unavailable) {
        expect(ensembleError).toMatch(/depends on '.*' which has no loaded version/);
        return;
      }
      expect(ensembleError).toBeUndefined();
      expect(await client.modelReady(ensemble)).toBe(true);

      // sim-llm answers the prompt's own ids, cycled: the expected text comes from HF's tokenizer.
      // Characters whose bytes span tokens and word-start spaces must come through whole, also
      // where a decoupled model step streams one token per response.
      const prompt = 'naïve café ünïcödé 🙂 def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)';
      const ids = (await hf.encode(prompt, null, { addSpecialTokens: c.addSpecialTokens })).getIds();
      const maxTokens = ids.length + 5;
      const expected = await hf.decode(
        Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
        true,
      );
      const answer = await sendPrompt(client, { model: ensemble, text: prompt, maxTokens, stream: true });
      expect(answer.text).toBe(expected);
      const modelStep = (await client.modelConfig(ensemble)).ensemble_scheduling!.step.map(
        (s) => s.model_name,
      );
      const configs = await Promise.all(modelStep.map((m) => client.modelConfig(m)));
      if (configs.some((m) => m.model_transaction_policy?.decoupled)) {
        expect(answer.responses).toBeGreaterThanOrEqual(maxTokens);
      }
    });

    if (c.sample === 'distilbert-onnx') {
      // The encoder's native tokenize step runs even though ONNX Runtime is not here.
      await withServer(repo, async (client) => {
        await client.loadModel('tokenize');
        const texts = ['The quick brown fox jumps over the lazy dog', 'Short one.'];
        const result = await client.infer('tokenize', [bytesInput('TEXT', [2, 1], texts)]);
        const ids = result.numbers('input_ids');
        const mask = result.numbers('attention_mask');
        const width = ids.length / 2;
        for (const [row, text] of texts.entries()) {
          const want = (await hf.encode(text)).getIds();
          expect(ids.slice(row * width, row * width + want.length)).toEqual(want);
          expect(mask.slice(row * width, (row + 1) * width)).toEqual(
            Array.from({ length: width }, (_, i) => (i < want.length ? 1 : 0)),
          );
        }
      });
    }
  });
});
