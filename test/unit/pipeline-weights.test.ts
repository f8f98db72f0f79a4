// A llama.cpp step that names its weights (`parameters.gguf: "smollm2-135m-instruct-q4_1"`):
// looked for in the llama folders, TS-E101 on the value when absent, copied into the version
// folder under the file name the step then loads (generator/pipeline/checks/weights.ts).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  generateRepository,
  nodeEnvironment,
  validatePipeline,
  WEIGHT_SOURCES,
  type Pipeline,
} from '../../generator/index.js';
import { covered } from './pipeline-validate-helpers.js';

const SAMPLE = resolve(__dirname, '../../samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json');
const smollm2 = WEIGHT_SOURCES['smollm2-135m-instruct-q4_1'];
const scratch = mkdtempSync(join(tmpdir(), 'pipeline-weights-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The sample in a folder of its own, validated with `llamaDirs` as the only llama folders. */
function validate(llamaDirs: string[], edit: (p: Pipeline) => void = () => {}) {
  const p = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
  delete p.$schema;
  edit(p);
  const text = JSON.stringify(p, null, 2);
  const file = join(scratch, 'smollm2.pipeline.json');
  const environment = { ...nodeEnvironment(), llamaDirs };
  const ds = validatePipeline(text, file, { environment }).diagnostics.filter((d) => d.severity === 'error');
  return { ds, text };
}

/** A llama folder holding the weights (a link to a stand-in file: only its presence is checked). */
function llamaDirWithWeights(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'models'), { recursive: true });
  symlinkSync(SAMPLE, join(dir, 'models', smollm2.file));
  return dir;
}

describe('weights named in parameters.gguf', () => {
  it('TS-E101: not downloaded into any llama folder, on the name, saying how to download it', () => {
    const empty = join(scratch, 'empty');
    const { ds, text } = validate([empty]);
    expect(ds.map((d) => d.code)).toEqual(['TS-E101']);
    expect(covered(text, ds[0]!)).toBe('"smollm2-135m-instruct-q4_1"');
    expect(ds[0]!.message).toContain(join(empty, 'models', smollm2.file));
    expect(ds[0]!.message).toContain('triton-studio fetch-model smollm2-135m-instruct-q4_1');
    expect(ds[0]!.message).toContain('Download Model');
  });

  it("TS-E051 for the model's own tokenizer says it comes with the model, and how to download it", () => {
    const p = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
    delete p.$schema;
    const text = JSON.stringify(p, null, 2);
    const environment = {
      ...nodeEnvironment(),
      tokenizerSearchDirs: [join(scratch, 'no-tokenizers')],
      llamaDirs: [],
    };
    const ds = validatePipeline(text, join(scratch, 'smollm2.pipeline.json'), { environment }).diagnostics;
    const missing = ds.filter((d) => d.code === 'TS-E051');
    expect(missing.length).toBeGreaterThan(0);
    for (const d of missing) {
      expect(d.message).toContain('Tokenizer "smollm2-135m-instruct" not found');
      expect(d.message).toContain('It comes with the model "smollm2-135m-instruct-q4_1"');
      expect(d.message).toContain('triton-studio fetch-model smollm2-135m-instruct-q4_1');
    }
  });

  it('are found in any of the llama folders, the first that has them', () => {
    expect(validate([join(scratch, 'none'), llamaDirWithWeights('second')]).ds).toEqual([]);
  });

  it('a file name is a file in the version folder, as before: no lookup', () => {
    const { ds } = validate([], (p) => {
      const llama = p.steps.find((s) => s.name === 'llama')!;
      llama.parameters = { ...llama.parameters, gguf: 'model.gguf' };
    });
    expect(ds).toEqual([]);
  });

  it('generate copies them into the version folder and the config names the file', () => {
    const llamaDir = llamaDirWithWeights('gen');
    const pipelinePath = join(scratch, 'gen.pipeline.json');
    const p = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;
    delete p.$schema;
    writeFileSync(pipelinePath, JSON.stringify(p));
    const outDir = join(scratch, 'repo');
    const result = generateRepository({ pipelinePath, outDir, llamaDirs: [llamaDir] });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.files).toContain(`llama/1/${smollm2.file}`);
    expect(readFileSync(join(outDir, 'llama/1', smollm2.file), 'utf8')).toBe(readFileSync(SAMPLE, 'utf8'));
    const config = readFileSync(join(outDir, 'llama/config.pbtxt'), 'utf8');
    expect(config).toMatch(new RegExp(`key: "gguf"\\s*value \\{\\s*string_value: "${smollm2.file}"`));
  });
});
