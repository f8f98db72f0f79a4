/**
 * Synthetic inputs as GenAI-Perf and AIPerf make them: prompts cut from a corpus to a target
 * length in tokens drawn from a normal distribution (`--synthetic-input-tokens-mean/-stddev`),
 * counted by the pipeline's own native tokenizer, and output lengths drawn the same way
 * (`--output-tokens-mean/-stddev`, sent as `max_tokens`). The same seed gives the same inputs.
 */
import { CORPUS } from './corpus.js';
import type { RequestInput } from './dataset.js';
import { normalSample, seededRandom } from '../load/schedule.js';

/** What synthetic inputs need from a tokenizer (NativeTokenizer has it). */
export interface TokenCodec {
  encode(text: string): Promise<number[]>;
  decode(ids: readonly number[]): Promise<string>;
}

export interface LengthDistribution {
  mean: number;
  /** 0: every value is the mean. */
  stddev?: number;
}

export interface SyntheticSpec {
  /** Prompt length in tokens. */
  inputTokens: LengthDistribution;
  /** Tokens to generate (`max_tokens`); the test's own when absent. */
  outputTokens?: LengthDistribution;
  /** How many distinct inputs (sent in turn); default 100. */
  count?: number;
  seed?: number;
  signal?: AbortSignal;
}

/** A whole number ≥ 1 from the distribution (GenAI-Perf rounds and clamps the same way). */
export function drawLength(d: LengthDistribution, random: () => number): number {
  const value = d.stddev ? d.mean + d.stddev * normalSample(random) : d.mean;
  return Math.max(1, Math.round(value));
}

function check(name: string, d: LengthDistribution | undefined): void {
  if (!d) return;
  if (!Number.isInteger(d.mean) || d.mean < 1)
    throw new Error(`${name} mean must be a whole number ≥ 1 (got ${d.mean})`);
  if (d.stddev !== undefined && !(d.stddev >= 0))
    throw new Error(`${name} standard deviation must be ≥ 0 (got ${d.stddev})`);
}

/**
 * `count` prompts, each `inputTokens` long (drawn per prompt) when encoded by `tokenizer`:
 * a window of the corpus's token ids at a random start, decoded, then checked by encoding the
 * text again (a cut can merge differently at its edges; the window shrinks or grows until the
 * text encodes to the drawn length, and the count recorded is always the text's own).
 */
export async function syntheticInputs(tokenizer: TokenCodec, spec: SyntheticSpec): Promise<RequestInput[]> {
  check('input tokens', spec.inputTokens);
  check('output tokens', spec.outputTokens);
  const count = spec.count ?? 100;
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`number of inputs must be a whole number ≥ 1 (got ${count})`);
  const random = seededRandom(spec.seed ?? 0);
  const corpus = await tokenizer.encode(CORPUS.replace(/\s+/g, ' '));
  const inputs: RequestInput[] = [];
  for (let i = 0; i < count; i++) {
    if (spec.signal?.aborted) throw new Error('cancelled while making synthetic prompts');
    const target = drawLength(spec.inputTokens, random);
    const start = Math.floor(random() * corpus.length);
    const window = (n: number) => Array.from({ length: n }, (_, k) => corpus[(start + k) % corpus.length]!);
    let take = target;
    let text = await tokenizer.decode(window(take));
    let tokens = (await tokenizer.encode(text)).length;
    for (let tries = 0; tokens !== target && tries < 4; tries++) {
      take = Math.max(1, take + (target - tokens));
      text = await tokenizer.decode(window(take));
      tokens = (await tokenizer.encode(text)).length;
    }
    const input: RequestInput = { text, inputTokens: tokens };
    if (spec.outputTokens) input.maxTokens = drawLength(spec.outputTokens, random);
    inputs.push(input);
  }
  return inputs;
}

/** Output lengths drawn for inputs that have none of their own (a fixed prompt, a dataset without them). */
export function withOutputLengths(
  inputs: readonly RequestInput[],
  outputTokens: LengthDistribution,
  options: { count?: number; seed?: number } = {},
): RequestInput[] {
  check('output tokens', outputTokens);
  const random = seededRandom(options.seed ?? 0);
  const n = Math.max(inputs.length, options.count ?? inputs.length);
  return Array.from({ length: n }, (_, i) => {
    const input = inputs[i % inputs.length]!;
    return input.maxTokens !== undefined ? input : { ...input, maxTokens: drawLength(outputTokens, random) };
  });
}
