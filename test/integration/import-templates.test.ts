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
import { TritonClient } from '../../client/grpc/client.js';
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
import { trtllmTemplateRepository } from '../fixtures/repositories/templates.js';

const work = mkdtempSync(join(tmpdir(), 'ts-import-templates-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const LLAMA = resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!;

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
    } finally {
      client.close();
      await server.stop();
    }
  });
});
