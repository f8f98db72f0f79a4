// Parity of the native `UnicodeScripts` pre-tokenizer with Hugging Face `tokenizers`. Its pieces
// are made visible in ids by a probe tokenizer: UnicodeScripts, then ByteLevel with
// add_prefix_space (every piece that does not start with a space gets a leading "Ġ"), then
// byte-level BPE without merges (ids are the bytes). Inputs: every code point next to letters of
// five scripts and in runs of consecutive code points (so each script table boundary is crossed),
// strings that open with spaces (HF drops them), kana and U+30FC (counted as Han), and the corpus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { probeTokenizer } from '../../bench/tokenizers/probe.js';
import { removeScratchTokenizers } from '../../bench/tokenizers/scratch.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

afterAll(removeScratchTokenizers);

const CORNERS = [
  '  leading spaces',
  '   ',
  ' 123abc',
  'abc漢字カタカナひらがなー한국어',
  'aー',
  'x\u0301y αβγ abc',
  'Привет, world! مرحبا 123',
  'a\u{1E900}b a\u{11F00}b a\u0378b',
  '\n\tcontrol \u0000 nul',
].map((text) => ({ text }));

let binary = '';
let probe = '';

/** Every scalar value, 128 to a string: between letters of several scripts, and in a run. */
function everyCodePoint(): ParityInput[] {
  const neighbours = ['a', 'α', '漢', 'ア', '1'];
  const out: ParityInput[] = [];
  for (let start = 0; start < 0x110000; start += 128) {
    const cps: string[] = [];
    for (let cp = start; cp < start + 128; cp++)
      if (cp < 0xd800 || cp > 0xdfff) cps.push(String.fromCodePoint(cp));
    if (cps.length === 0) continue;
    out.push({ text: cps.join('') });
    for (const n of neighbours) out.push({ text: n + cps.join(n) + n });
  }
  return out;
}

beforeAll(async () => {
  binary = await ensureTsTokenize();
  probe = probeTokenizer({ preTokenizer: { type: 'UnicodeScripts' } });
});

describe('UnicodeScripts splits as HF tokenizers does', () => {
  it('on every code point, beside letters of five scripts and in runs', async () => {
    const m = await checkParity(binary, probe, [...CORNERS, ...everyCodePoint()], {
      addSpecialTokens: false,
      skipSpecialTokens: false,
    });
    expect(m, describeMismatches(m, 3)).toEqual([]);
  });
  it('on the full corpus', async () => {
    const m = await checkParity(binary, probe, loadCorpus(), {
      addSpecialTokens: false,
      skipSpecialTokens: false,
    });
    expect(m, describeMismatches(m, 3)).toEqual([]);
  });
});
