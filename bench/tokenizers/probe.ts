// Probe tokenizers for the parity tests: one component under test in front of byte-level BPE
// without merges, so that the ids HF and the native library return are the bytes the component
// produced. A normalizer's output, or a pre-tokenizer's pieces (ByteLevel's add_prefix_space marks
// each piece's start with "Ġ"), then compare id for id.
import { byteLevelAlphabet } from 'tokenizers';

import type { ParityInput } from './parity.js';
import { writeScratchTokenizer } from './scratch.js';

/** Writes a probe tokenizer.json around `normalizer` and/or `preTokenizer` and returns its path. */
export function probeTokenizer(parts: { normalizer?: unknown; preTokenizer?: unknown }): string {
  const byteLevel = (addPrefixSpace: boolean): Record<string, unknown> => ({
    type: 'ByteLevel',
    add_prefix_space: addPrefixSpace,
    trim_offsets: false,
    use_regex: false,
  });
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: parts.normalizer ?? null,
    pre_tokenizer: parts.preTokenizer
      ? { type: 'Sequence', pretokenizers: [parts.preTokenizer, byteLevel(true)] }
      : byteLevel(false),
    post_processor: null,
    decoder: byteLevel(false),
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      // Sorted: HF returns the alphabet in a different order in each process, and a probe must be
      // the same file every run (hf-references.ts keys HF's answers by the file's bytes).
      vocab: Object.fromEntries([...byteLevelAlphabet()].sort().map((c, i) => [c, i])),
      merges: [],
    },
  };
  return writeScratchTokenizer(json);
}

/**
 * Every Unicode scalar value, `per` to a string: once joined by `separator`, once as a run of
 * consecutive code points.
 */
export function everyCodePoint(per: number, separator: string): ParityInput[] {
  const out: ParityInput[] = [];
  for (let start = 0; start < 0x110000; start += per) {
    const cps: string[] = [];
    for (let cp = start; cp < start + per; cp++)
      if (cp < 0xd800 || cp > 0xdfff) cps.push(String.fromCodePoint(cp));
    if (cps.length === 0) continue;
    out.push({ text: cps.join(separator) });
    out.push({ text: cps.join('') });
  }
  return out;
}
