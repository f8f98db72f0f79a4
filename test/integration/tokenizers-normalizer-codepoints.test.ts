// The normalizers built on the library's hand-written Unicode tables (NFC, NFD, NFKC, NFKD,
// Lowercase, BertNormalizer), and the code-point rules Nmt and ByteLevel, give HF tokenizers'
// output byte for byte on every Unicode
// scalar value, alone (between spaces) and in runs of consecutive code points (so canonical
// reordering and composition across neighbours are exercised). A probe tokenizer makes the
// normalized bytes the ids (bench/tokenizers/probe.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { everyCodePoint, probeTokenizer } from '../../bench/tokenizers/probe.js';
import { removeScratchTokenizers } from '../../bench/tokenizers/scratch.js';

afterAll(removeScratchTokenizers);

const NORMALIZERS: Record<string, unknown> = {
  NFC: { type: 'NFC' },
  NFD: { type: 'NFD' },
  NFKC: { type: 'NFKC' },
  NFKD: { type: 'NFKD' },
  Lowercase: { type: 'Lowercase' },
  Nmt: { type: 'Nmt' },
  ByteLevel: { type: 'ByteLevel' },
  // HF's takes is_combining_mark from its Unicode 9.0 normalization crate: marks added since stay.
  StripAccents: { type: 'StripAccents' },
  BertNormalizer: {
    type: 'BertNormalizer',
    clean_text: true,
    handle_chinese_chars: true,
    strip_accents: null,
    lowercase: true,
  },
};

let binary = '';
let inputs: ParityInput[] = [];

beforeAll(async () => {
  binary = await ensureTsTokenize();
  inputs = everyCodePoint(256, ' ');
});

describe('Unicode-table normalizers match HF on every code point', () => {
  for (const [name, normalizer] of Object.entries(NORMALIZERS)) {
    it(
      name,
      async () => {
        const m = await checkParity(binary, probeTokenizer({ normalizer }), inputs, {
          addSpecialTokens: false,
          skipSpecialTokens: false,
        });
        expect(m, describeMismatches(m, 3)).toEqual([]);
      },
      600_000,
    );
  }
});
