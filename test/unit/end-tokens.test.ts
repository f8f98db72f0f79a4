/**
 * A tokenize step's end tokens come from the model's own configs beside its tokenizer.json
 * (tokenizer_config.json's eos_token, generation_config.json's eos_token_id), also when it takes
 * no conversations: the first is its END_ID output, each one stops generation. SmolLM2's
 * tokenizer holds `<|endoftext|>` (id 0), which a name-based guess would pick; the model ends
 * its answers with `<|im_end|>` (id 2). The served answer is checked in
 * test/integration/llama-cpp-serving.test.ts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateRepository } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json');
const SMOLLM2 = join(ROOT, '.cache/tokenizers/smollm2-135m-instruct');
const work = mkdtempSync(join(tmpdir(), 'ts-end-tokens-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The SmolLM2 sample without its conversation input, its tokenizer folder a copy with `configs`. */
function plainSample(name: string, configs: Record<string, unknown>): string {
  const dir = join(work, name);
  cpSync(join(SMOLLM2, 'tokenizer.json'), join(dir, 'tok/tokenizer.json'));
  for (const [file, json] of Object.entries(configs))
    writeFileSync(join(dir, 'tok', file), JSON.stringify(json));
  const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
    $schema?: string;
    inputs: { name: string }[];
    wires: { from: string }[];
    steps: { name: string; tokenizer?: string; inputs?: unknown[]; files?: string[] }[];
  };
  delete pipeline.$schema;
  pipeline.inputs = pipeline.inputs.filter((p) => p.name !== 'messages');
  pipeline.wires = pipeline.wires.filter((w) => w.from !== 'messages');
  for (const step of pipeline.steps) {
    if (step.tokenizer) step.tokenizer = './tok';
    if (step.name === 'preprocessing') delete step.inputs;
    if (step.name === 'llama') step.files = [];
  }
  const file = join(dir, 'plain.pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline, null, 2));
  return file;
}

function tokenizeSpec(file: string, out: string): string {
  const generated = generateRepository({ pipelinePath: file, outDir: out });
  expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return readFileSync(join(`${out}.src`, 'smollm2/step.cc'), 'utf8');
}

describe('the end tokens of a tokenize step without conversations', () => {
  it("are tokenizer_config.json's eos_token (SmolLM2: <|im_end|> = 2, not <|endoftext|> = 0)", () => {
    const config = JSON.parse(readFileSync(join(SMOLLM2, 'tokenizer_config.json'), 'utf8')) as object;
    const step = tokenizeSpec(
      plainSample('config', { 'tokenizer_config.json': config }),
      join(work, 'config-repo'),
    );
    expect(step).toContain('s.tokenize.end_ids = {2};');
    expect(step).not.toContain('chat_template_file');
  });

  it("join generation_config.json's eos_token_id list, without repeats", () => {
    const file = plainSample('generation', {
      'tokenizer_config.json': { eos_token: { content: '<|im_end|>' } },
      'generation_config.json': { eos_token_id: [2, 0] },
    });
    expect(tokenizeSpec(file, join(work, 'generation-repo'))).toContain('s.tokenize.end_ids = {2, 0};');
  });

  it('are left to the tokenizer when no config is beside it', () => {
    expect(tokenizeSpec(plainSample('none', {}), join(work, 'none-repo'))).not.toContain('end_ids');
  });

  it('fail generation naming the config when its eos_token is no token of the tokenizer', () => {
    const file = plainSample('unknown', { 'tokenizer_config.json': { eos_token: '<|no such token|>' } });
    const generated = generateRepository({ pipelinePath: file, outDir: join(work, 'unknown-repo') });
    expect(generated.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([
      expect.stringMatching(/tokenizer_config\.json: its eos_token "<\|no such token\|>" is not a token of/),
    ]);
  });
});
