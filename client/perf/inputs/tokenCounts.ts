/**
 * Input and output tokens of measured requests, counted by the pipeline's own tokenizer after the
 * run (as AIPerf and GenAI-Perf count them, so counting never delays a request). The prompt is
 * never counted as output: output is the text of the answer's chunks alone.
 */
export interface TokenCounter {
  count(text: string): Promise<number>;
  /** The tokenizer file, for the report. */
  readonly tokenizer?: string;
}

/**
 * Output tokens per streamed chunk, adding up to the count of the whole answer (a chunk may carry
 * several tokens, and tokens counted piecewise can differ from the whole at chunk edges: the
 * difference is taken from, or given to, the last chunks).
 */
export async function chunkTokens(counter: TokenCounter, chunks: readonly string[]): Promise<number[]> {
  if (chunks.length === 0) return [];
  const total = await counter.count(chunks.join(''));
  if (total === chunks.length) return chunks.map(() => 1);
  return reconcile(await Promise.all(chunks.map((c) => counter.count(c))), total);
}

/** Per-chunk counts made to add up to `total`: a surplus is taken from the last chunks, a deficit given to the last. */
export function reconcile(each: number[], total: number): number[] {
  const out = [...each];
  let surplus = out.reduce((a, b) => a + b, 0) - total;
  for (let i = out.length - 1; surplus > 0 && i >= 0; i--) {
    const cut = Math.min(out[i]!, surplus);
    out[i]! -= cut;
    surplus -= cut;
  }
  if (surplus < 0 && out.length > 0) out[out.length - 1]! -= surplus;
  return out;
}

/** Counts each distinct prompt once (a dataset or a fixed prompt repeats). */
export function promptCounter(counter: TokenCounter): (text: string) => Promise<number> {
  const seen = new Map<string, Promise<number>>();
  return (text) => {
    let n = seen.get(text);
    if (n === undefined) {
      n = counter.count(text);
      seen.set(text, n);
    }
    return n;
  };
}
