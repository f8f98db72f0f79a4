// Parity of the native tokenizer with Hugging Face `tokenizers` (npm binding of the Rust library)
// on the project corpus (scripts/build-corpus.ts: real code, prose, ~35 languages, emoji, edge
// cases, invalid UTF-8) for every assembled tokenizer: ids, decoded text, and streaming decode.
// Every string, in CI too (about a minute for all five tokenizers); TOKENIZERS_SAMPLED_CORPUS=1
// checks every 8th, for a quick local run.
import { beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { trainedUnigramFile } from '../../bench/tokenizers/trained-unigram.js';
import {
  assembleTokenizers,
  TOKENIZER_NAMES,
  type TokenizerName,
} from '../../scripts/assemble-tokenizers.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

const FULL = process.env.TOKENIZERS_SAMPLED_CORPUS !== '1';
// No registry package ships a Unigram tokenizer.json: HF's trainer makes one (trained-unigram.ts).
const UNIGRAM = 'unigram (trained, XLM-R pipeline)' as const;

let binary = '';
let files = {} as Record<TokenizerName | typeof UNIGRAM, string>;
let corpus: ParityInput[] = [];

beforeAll(async () => {
  binary = ensureTsTokenize();
  files = { ...(await assembleTokenizers()), [UNIGRAM]: trainedUnigramFile() };
  const all = loadCorpus();
  expect(all.length).toBeGreaterThanOrEqual(20_000);
  corpus = FULL ? all : all.filter((_, i) => i % 8 === 0);
});

describe(`native tokenizers match HF tokenizers on the ${FULL ? 'full' : 'sampled'} corpus`, () => {
  for (const name of [...TOKENIZER_NAMES, UNIGRAM] as const) {
    it(`${name}: with special tokens added and kept`, async () => {
      const m = await checkParity(binary, files[name], corpus, {
        addSpecialTokens: true,
        skipSpecialTokens: false,
      });
      expect(m, describeMismatches(m)).toEqual([]);
    });
    it(`${name}: without special tokens, skipping them in decode`, async () => {
      const m = await checkParity(binary, files[name], corpus, {
        addSpecialTokens: false,
        skipSpecialTokens: true,
      });
      expect(m, describeMismatches(m)).toEqual([]);
    });
  }
});
