/**
 * Golden files: the config.pbtxt files generated from every pipeline in samples/, byte for byte,
 * in golden/<pipeline file name without .pipeline.json>/, and the layout (every path written,
 * the step sources under `REPO.src/`) in its layout.txt. A change in what the
 * generator writes shows up as a diff here to review. `UPDATE_GOLDEN=1 npx vitest run
 * test/unit/generator-golden.test.ts` rewrites them after an intended change.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic, generateRepository } from '../../generator/index.js';

const SAMPLES = resolve(__dirname, '../../samples');
const GOLDEN = resolve(__dirname, '../fixtures/repositories/golden');
const update = process.env.UPDATE_GOLDEN === '1';
const work = mkdtempSync(join(tmpdir(), 'ts-golden-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const samples = readdirSync(SAMPLES, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(SAMPLES, e.name, `${e.name}.pipeline.json`)))
  .map((e) => e.name);
/** [pipeline name, file] for every pipeline of every sample (a sample may hold variants). */
const pipelines = samples.flatMap((sample) =>
  readdirSync(join(SAMPLES, sample))
    .filter((f) => f.endsWith('.pipeline.json'))
    .map((f) => [f.replace(/\.pipeline\.json$/, ''), join(SAMPLES, sample, f)] as const),
);

describe('generated configs match the golden files', () => {
  it('covers every sample', () => {
    expect(samples.sort()).toEqual([
      'bge-embedding-onnx',
      'codegen-fastertransformer',
      'distilbert-onnx',
      'gpt2-sim',
      'gpt2-tensorrt-llm',
      'gpt2-vllm',
      'llama2-tensorrt-llm',
      'llama3.1-tensorrt-llm',
      'ms-marco-reranker-onnx',
      'qwen3-tensorrt-llm',
      'smollm2-llama-cpp',
    ]);
  });

  it('covers every pipeline variant', () => {
    expect(pipelines.map(([name]) => name).filter((name) => !samples.includes(name))).toEqual([
      'codegen-ft-dropin',
    ]);
  });

  it.each(pipelines)('%s', (name, file) => {
    const repo = join(work, name);
    const r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    const configs = r.files.filter((f) => f.endsWith('config.pbtxt')).sort();
    const layout = [...r.files, ...r.sourceFiles.map((f) => `REPO.src/${f}`)].sort().join('\n') + '\n';
    const goldenDir = join(GOLDEN, name);
    if (update) {
      rmSync(goldenDir, { recursive: true, force: true });
      for (const f of configs) {
        mkdirSync(dirname(join(goldenDir, f)), { recursive: true });
        writeFileSync(join(goldenDir, f), readFileSync(join(repo, f)));
      }
      writeFileSync(join(goldenDir, 'layout.txt'), layout);
    }
    expect(layout).toBe(readFileSync(join(goldenDir, 'layout.txt'), 'utf8'));
    const golden = readdirSync(goldenDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name === 'config.pbtxt')
      .map((e) => `${e.parentPath.slice(goldenDir.length + 1)}/${e.name}`)
      .sort();
    expect(configs).toEqual(golden);
    for (const f of configs) {
      expect(readFileSync(join(repo, f), 'utf8'), f).toBe(readFileSync(join(goldenDir, f), 'utf8'));
    }
  });
});
