// Parity of the native `Precompiled` normalizer (SentencePiece's compiled charsmap) with Hugging
// Face `tokenizers` on the whole project corpus, inside the two real pipelines that carry it: XLM-R's
// (also BGE-M3's and multilingual E5's) with the nmt_nfkc rule, and T5's with the case-folding
// nmt_nfkc_cf rule. No registry package ships such a tokenizer.json, so
// bench/tokenizers/make_precompiled_fixtures.py made these with SentencePiece and transformers' own
// converters (committed under test/fixtures/tokenizers/precompiled/).
// Plus strings chosen for the normalizer's odd corners: grapheme clusters shorter and longer than
// 6 bytes, clusters whose first code point the charsmap maps, Devanagari conjuncts (GB9c), emoji
// ZWJ sequences, regional indicators, Hangul jamo, NUL bytes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { everyCodePoint, probeTokenizer } from '../../bench/tokenizers/probe.js';
import { removeScratchTokenizers } from '../../bench/tokenizers/scratch.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

afterAll(removeScratchTokenizers);

const FIXTURES = path.resolve(__dirname, '../fixtures/tokenizers/precompiled');
const FILES = ['xlm-roberta-nmt_nfkc.json', 't5-nmt_nfkc_cf.json'];

const CORNERS = [
  'e\u0301 ﬁ ① ｶﾞ ＡＢＣ ㍿ ½',
  'A\u0301\u0302\u0303\u0304 z\u0308\u0323',
  'क्षि त्र श्र ज्ञ क्\u200dष द्ध्र्य',
  'ক্ষ ત્ર ക്ഷ ଜ୍ଞ త్ర',
  '👨\u200d👩\u200d👧\u200d👦 🏳️\u200d🌈 👍🏽 ❤️',
  '🇫🇷🇩🇪🇯 🇺',
  '\u1100\u1161\u11A8 \uAC00\u11A8 한국어',
  'tab\there\r\nnew\u000bline\u0085x\u00a0y\u3000z',
  'a\u0000b ﬀ\u0301 Ⅻ\u0308 ｶ\u3099',
  '\u0d15\u0d4d\u0d37\u0d3f \u0915\u094d\u200c\u0937',
  'ǅ ß ẞ İ ΐ ﬃ Å K',
  '\ufeffBOM \u200b\u200c\u200d\u2060 soft\u00adhyphen',
  '\ud800'.replace(/./, 'x') + '\u{1F468}\u{1F3FB}\u200D\u{1F91D}\u200D\u{1F468}\u{1F3FF}',
].map((text) => ({ text }));

let binary = '';
let corpus: ParityInput[] = [];

beforeAll(async () => {
  binary = await ensureTsTokenize();
  corpus = [...loadCorpus(), ...CORNERS];
  expect(corpus.length).toBeGreaterThanOrEqual(20_000);
});

describe('Precompiled normalizer pipelines match HF tokenizers on the full corpus', () => {
  for (const file of FILES) {
    for (const addSpecialTokens of [true, false]) {
      it(`${file}: ${addSpecialTokens ? 'with' : 'without'} special tokens`, async () => {
        const m = await checkParity(binary, path.join(FIXTURES, file), corpus, {
          addSpecialTokens,
          skipSpecialTokens: !addSpecialTokens,
        });
        expect(m, describeMismatches(m)).toEqual([]);
      });
    }
  }
});

function normalizerProbe(file: string): string {
  const json = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as { normalizer: unknown };
  return probeTokenizer({ normalizer: json.normalizer });
}

/** Each combining code point (marks, ZWJ, variation selectors...) after bases of several kinds. */
function clusters(): ParityInput[] {
  const mark = /\p{M}/u;
  const joins = (cp: number, c: string): boolean =>
    mark.test(c) ||
    cp === 0x200c ||
    cp === 0x200d ||
    (cp >= 0x1f3fb && cp <= 0x1f3ff) || // skin tones
    (cp >= 0xe0020 && cp <= 0xe007f); // tag characters
  const bases = ['a', 'e', 'ｶ', 'ﬁ', 'क', '가', '👍', '🇫', '①', 'Å', '\u0000'];
  const out: ParityInput[] = [];
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (joins(cp, c)) out.push({ text: bases.map((b) => b + c + ' ' + b + c + c).join(' ') });
  }
  return out;
}

describe('Precompiled normalizes every code point as HF tokenizers does', () => {
  for (const file of FILES) {
    it(`${file}: every code point alone and in runs, every combining mark after 11 bases`, async () => {
      const inputs = [...everyCodePoint(256, '\n'), ...clusters()];
      const m = await checkParity(binary, normalizerProbe(file), inputs, {
        addSpecialTokens: false,
        skipSpecialTokens: false,
      });
      expect(m, describeMismatches(m, 3)).toEqual([]);
    });
  }
});
