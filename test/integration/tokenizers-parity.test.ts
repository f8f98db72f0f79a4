// Parity of the native tokenizer with Hugging Face `tokenizers` (npm binding of the Rust library)
// on the project corpus (scripts/build-corpus.ts: real code, prose, ~35 languages, emoji, edge
// cases, invalid UTF-8) for every assembled tokenizer, plus text with the tokenizer's own added
// tokens inside: ids, decoded text, and streaming decode.
// Every string, in CI too (about two and a half minutes for all twelve); TOKENIZERS_SAMPLED_CORPUS=1
// checks every 8th, for a quick local run.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';

import { addedTokenMixes } from '../../bench/tokenizers/edge-cases.js';
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
  binary = await ensureTsTokenize();
  files = { ...(await assembleTokenizers()), [UNIGRAM]: trainedUnigramFile() };
  const all = loadCorpus();
  expect(all.length).toBeGreaterThanOrEqual(20_000);
  corpus = FULL ? all : all.filter((_, i) => i % 8 === 0);
});

/** The tokenizer's own added tokens (specials first) inside text: 1000 strings. */
function withAddedTokens(file: string): ParityInput[] {
  const added =
    (JSON.parse(readFileSync(file, 'utf8')) as { added_tokens?: { content: string }[] }).added_tokens ?? [];
  // Gemma-3 has 6415 added tokens: its first 300 (the specials) and every 20th of the rest.
  const picked = added.filter((_, i) => i < 300 || i % 20 === 0).map((t) => t.content);
  return addedTokenMixes(picked, 1000, 7).map((text) => ({ text }));
}

describe(`native tokenizers match HF tokenizers on the ${FULL ? 'full' : 'sampled'} corpus`, () => {
  for (const name of [...TOKENIZER_NAMES, UNIGRAM] as const) {
    it(`${name}: with special tokens added and kept`, async () => {
      const m = await checkParity(binary, files[name], [...corpus, ...withAddedTokens(files[name])], {
        addSpecialTokens: true,
        skipSpecialTokens: false,
        flat: true,
      });
      expect(m, describeMismatches(m)).toEqual([]);
    });
    it(`${name}: without special tokens, skipping them in decode`, async () => {
      const m = await checkParity(binary, files[name], [...corpus, ...withAddedTokens(files[name])], {
        addSpecialTokens: false,
        skipSpecialTokens: true,
        flat: true,
      });
      expect(m, describeMismatches(m)).toEqual([]);
    });
  }
});
