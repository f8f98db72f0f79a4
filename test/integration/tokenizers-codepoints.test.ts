// The Unicode tables (GPT-2's \p{L}/\p{N}/\s classes, BERT's punctuation, marks and control
// characters, lowercasing) agree with Hugging Face `tokenizers` for every Unicode scalar value:
// each code point is encoded inside a small template by both and the ids compared.
import { Tokenizer } from 'tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';

import { encodeIds, ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { answerDigest, planCheck } from '../../bench/tokenizers/hf-references.js';
import { sameIds } from '../../bench/tokenizers/parity.js';
import { assembleTokenizers, type TokenizerName } from '../../scripts/assemble-tokenizers.js';

let binary = '';
let files = {} as Record<TokenizerName, string>;

beforeAll(async () => {
  binary = await ensureTsTokenize();
  files = await assembleTokenizers();
});

async function mismatchingCodePoints(name: TokenizerName, template: string): Promise<string[]> {
  const reference = Tokenizer.fromFile(files[name]);
  const cps: number[] = [];
  for (let c = 0; c < 0x110000; c++) if (c < 0xd800 || c > 0xdfff) cps.push(c);
  const texts = cps.map((c) => template.replace('{}', String.fromCodePoint(c)));
  // The native side in one process (one load); HF in chunks, which bound its memory. Where the
  // native ids hash to HF's recorded answer, HF runs on every 8th code point (hf-references.ts).
  const actual = await encodeIds(binary, files[name], texts, false);
  const { checked, keep } = planCheck('ids', files[name], texts, { addSpecialTokens: false }, () =>
    answerDigest(actual.map((ids) => ({ ids }))),
  );
  const expected: number[][] = [];
  const chunk = 65536;
  for (let start = 0; start < checked.length; start += chunk) {
    const slice = checked.slice(start, start + chunk).map((i) => texts[i]!);
    for (const e of await reference.encodeBatch(slice, { addSpecialTokens: false }))
      expected.push(e.getIds());
  }
  keep(() => answerDigest(expected.map((ids) => ({ ids }))));
  return checked.filter((i, k) => !sameIds(expected[k]!, actual[i]!)).map((i) => `U+${cps[i]!.toString(16)}`);
}

describe('every code point tokenizes as in HF', () => {
  const cases: [TokenizerName, string][] = [
    ['gpt2', 'x{}x'],
    ['gpt2', ' {}x'],
    ['llama-2', 'x{}x'],
    ['bert-base-uncased', 'x{}x'],
    ['bert-base-uncased', 'A{}B'],
  ];
  for (const [name, template] of cases) {
    it(`${name}: ${JSON.stringify(template)}`, async () => {
      const bad = await mismatchingCodePoints(name, template);
      expect(bad.slice(0, 20), `${bad.length} code points differ`).toEqual([]);
    }, 600_000);
  }
});
