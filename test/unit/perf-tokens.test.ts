/** Output tokens counted per streamed chunk (client/perf/inputs/tokenCounts). */
import { describe, expect, it } from 'vitest';
import { chunkTokens, reconcile } from '../../client/perf/inputs/tokenCounts.js';

/** A tokenizer that merges character pairs: counted piecewise it over-counts odd-length chunks. */
const pairs = { count: (text: string) => Promise.resolve(Math.ceil(text.length / 2)) };

describe('output tokens per streamed chunk', () => {
  it('one token per chunk when the whole answer has as many tokens as chunks (no per-chunk counting)', async () => {
    expect(await chunkTokens(pairs, ['ab', 'cd', 'ef'])).toEqual([1, 1, 1]);
  });

  it('a chunk carrying several tokens counts as all of them', async () => {
    expect(await chunkTokens(pairs, ['abcd', 'ef'])).toEqual([2, 1]);
  });

  it('piecewise counts add up to the whole answer: a surplus comes off the last chunks', async () => {
    // 'a','b','c' count 1 each piecewise, but 'abc' is 2 tokens.
    expect(await chunkTokens(pairs, ['a', 'b', 'c'])).toEqual([1, 1, 0]);
    expect(reconcile([1, 1, 1], 1)).toEqual([1, 0, 0]);
  });

  it('a deficit goes to the last chunk (server counts larger than the chunks)', () => {
    expect(reconcile([1, 1], 5)).toEqual([1, 4]);
    expect(reconcile([], 3)).toEqual([]);
  });
});
