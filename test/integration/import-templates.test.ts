/**
 * Repositories laid out like NVIDIA's templates, as a user has them: imported, validated,
 * generated, built and loaded on the real tritonserver, with no hand edit to the pipeline except
 * the one line that puts the CPU stand-in (sim-llm) on the GPU model step. The answer is checked
 * against Hugging Face's tokenizer (sim-llm echoes the prompt's ids).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import {
  formatDiagnostic,
  generateRepository,
  importRepository,
  validatePipeline,
} from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { checkParity, describeMismatches } from '../../bench/tokenizers/parity.js';
import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { loadCorpus } from '../../scripts/build-corpus.js';
import { ftTemplateRepository, trtllmTemplateRepository } from '../fixtures/repositories/templates.js';

const work = mkdtempSync(join(tmpdir(), 'ts-import-templates-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const LLAMA = resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!;
const GPT2 = resolveTokenizer('gpt2', __filename, defaultTokenizerSearchDirs()).file!;

describe('TensorRT-LLM inflight_batcher_llm, filled as the tutorial does (placeholders forgotten)', () => {
  it('imports with --set, validates, generates, builds, loads and answers with tensorrt_llm on sim-llm', async () => {
    const source = trtllmTemplateRepository(join(work, 'source'), dirname(LLAMA));
    const pipelinePath = join(work, 'llama.pipeline.json');
    const imported = importRepository(source, {
      outFile: pipelinePath,
      set: { max_queue_delay_microseconds: '0', max_queue_size: '0' },
    });
    expect(imported.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    const pipeline = imported.pipeline!;
    pipeline.steps.find((s) => s.name === 'tensorrt_llm')!.backend = 'sim_llm'; // the one line
    const text = JSON.stringify(pipeline, null, 2);
    writeFileSync(pipelinePath, text);
    const validated = validatePipeline(text, pipelinePath);
    expect(validated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);

    const repo = join(work, 'repo');
    const generated = generateRepository({ pipelinePath, outDir: repo });
    expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    await buildRepository(repo, { stepsBuildDir: join(work, 'steps') });

    const server = await startLocalServer({ modelRepository: repo, logFile: join(work, 'server.log') });
    const client = new TritonClient(server.grpcUrl);
    try {
      for (const m of generated.models) await client.loadModel(m.name);
      const hf = await Tokenizer.fromFile(LLAMA);
      const prompt = 'The quick brown fox';
      const ids = (await hf.encode(prompt, null, { addSpecialTokens: true })).getIds(); // BOS: the unfilled default
      const maxTokens = ids.length + 3;
      const expected = await hf.decode(
        Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
        true,
      );
      for (const stream of [false, true]) {
        const answer = await sendPrompt(client, { model: 'ensemble', text: prompt, maxTokens, stream });
        expect(answer.text).toBe(expected);
      }
      // Triton's HTTP generate endpoint takes one response: sim-llm (decoupled, like TensorRT-LLM)
      // answers once when the request does not ask for streaming, so it works without `stream`.
      const viaHttp = await fetch(`${server.httpUrl}/v2/models/ensemble/generate`, {
        method: 'POST',
        body: JSON.stringify({ text_input: prompt, max_tokens: maxTokens }),
      });
      const body = await viaHttp.text();
      expect(viaHttp.status, body).toBe(200);
      expect((JSON.parse(body) as { text_output: string }).text_output).toBe(expected);
    } finally {
      client.close();
      await server.stop();
    }
  });
});

describe('FasterTransformer all_models/gptj (gpt2-vocab.json + gpt2-merges.txt, no tokenizer.json)', () => {
  const pipelinePath = join(work, 'gptj.pipeline.json');
  let tokenizerFile = '';

  it('imports with native steps whose tokenizer.json, made from vocab + merges, matches HF id for id on the corpus', async () => {
    const imported = importRepository(ftTemplateRepository(join(work, 'ft-source'), GPT2), {
      outFile: pipelinePath,
    });
    expect(imported.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    tokenizerFile = Object.keys(imported.files!)[0]!;
    for (const [file, text] of Object.entries(imported.files!)) writeFileSync(file, text);
    const pipeline = imported.pipeline!;
    pipeline.steps.find((s) => s.name === 'fastertransformer')!.backend = 'sim_llm'; // the one line
    writeFileSync(pipelinePath, JSON.stringify(pipeline, null, 2));

    // The made file is HF's GPT-2 tokenizer.json field for field (test/unit/import.test.ts); the
    // native step reading it matches HF's library id for id on the whole parity corpus.
    const corpus = loadCorpus();
    const m = await checkParity(await ensureTsTokenize(), tokenizerFile!, corpus, {
      addSpecialTokens: false,
      skipSpecialTokens: true,
    });
    expect(m, describeMismatches(m)).toEqual([]);
  });

  it('generates, builds, loads and answers FT clients with fastertransformer on sim-llm', async () => {
    const repo = join(work, 'ft-repo');
    const generated = generateRepository({ pipelinePath, outDir: repo });
    expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    await buildRepository(repo, { stepsBuildDir: join(work, 'ft-steps') });
    const server = await startLocalServer({ modelRepository: repo, logFile: join(work, 'ft-server.log') });
    const client = new TritonClient(server.grpcUrl);
    try {
      for (const m of generated.models) await client.loadModel(m.name);
      const hf = await Tokenizer.fromFile(GPT2);
      const prompt = 'def hello_world():\n    print("naïve café 🙂")';
      const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
      const outputLen = ids.length + 3;
      const result = await client.infer('ensemble', [
        bytesInput('INPUT_0', [1, 1], [prompt]),
        numericInput('INPUT_1', 'UINT32', [1, 1], [outputLen]),
        bytesInput('INPUT_2', [1, 1], ['']),
        bytesInput('INPUT_3', [1, 1], ['']),
      ]);
      const expected = await hf.decode(
        Array.from({ length: outputLen }, (_, i) => ids[i % ids.length]!),
        true,
      );
      expect(result.strings('OUTPUT_0')).toEqual([expected]);
    } finally {
      client.close();
      await server.stop();
    }
  });
});
