// A tokenizer.json that is well-formed JSON but that the native library cannot load (a component
// it does not implement) is refused by validation at the step's tokenizer field, with the native
// library's own words, once a build has made the ts-tokenize tool — not at model load.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';

import { ensureNativeTool, repoRoot } from '../../bench/tokenizers/native.js';
import { validatePipeline } from '../../generator/index.js';

beforeAll(async () => {
  await ensureNativeTool('ts-tokenize');
});

it('TS-E056 names what the native library cannot load', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ts-native-check-'));
  const gpt2 = JSON.parse(readFileSync(path.join(repoRoot, '.cache/tokenizers/gpt2/tokenizer.json'), 'utf8'));
  // Every model type HF writes is implemented now: a misspelt one stands for what is not.
  gpt2.model.type = 'Wordpiece';
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(gpt2));
  const pipeline = JSON.parse(
    readFileSync(path.join(repoRoot, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  );
  delete pipeline.$schema;
  pipeline.steps[0].tokenizer = './tokenizer.json';
  const file = path.join(dir, 'x.pipeline.json');
  const text = JSON.stringify(pipeline, null, 2);
  writeFileSync(file, text);

  const { diagnostics } = validatePipeline(text, file);
  const e056 = diagnostics.filter((d) => d.code === 'TS-E056');
  expect(e056).toHaveLength(1);
  expect(e056[0]!.message).toContain(
    "model.type: unsupported model 'Wordpiece' (supported: BPE, WordPiece, WordLevel, Unigram)",
  );

  // The same file with a supported model passes the check.
  gpt2.model.type = 'BPE';
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(gpt2));
  expect(validatePipeline(text, file).diagnostics.filter((d) => d.code === 'TS-E056')).toEqual([]);
});
