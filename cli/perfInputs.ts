/** `perf`'s inputs and token counting: a fixed prompt, a JSONL dataset or synthetic prompts; output lengths drawn; the native tokenizer. */
import type { Command } from 'commander';
import {
  readInputDataset,
  syntheticInputs,
  withOutputLengths,
  type NativeTokenizer,
  type RequestInput,
} from '../client/index.js';
import { CliError } from './io.js';
import { nativeTokenizer } from './nativeTokenizer.js';
import { wholeNumber } from './options.js';

export interface PerfInputOptions {
  prompt: string;
  inputFile?: string;
  tokenizer?: string;
  syntheticInputTokensMean?: number;
  syntheticInputTokensStddev: number;
  outputTokensMean?: number;
  outputTokensStddev: number;
  numDatasetEntries: number;
  seed?: number;
}

/** GenAI-Perf / AIPerf's option names. */
export function withPerfInputOptions(command: Command): Command {
  const stddev = (value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`expected a number ≥ 0, got '${value}'`);
    return n;
  };
  return command
    .option(
      '--tokenizer <file>',
      "count input and output tokens with the pipeline's native tokenizer (tokenizer.json, its folder, or a known name)",
    )
    .option(
      '--synthetic-input-tokens-mean <n>',
      'synthetic prompts of this many tokens on average (counted by --tokenizer), instead of --prompt',
      wholeNumber(1),
    )
    .option('--synthetic-input-tokens-stddev <n>', 'their standard deviation', stddev, 0)
    .option(
      '--output-tokens-mean <n>',
      'max_tokens drawn per request with this mean (instead of --max-tokens)',
      wholeNumber(1),
    )
    .option('--output-tokens-stddev <n>', 'its standard deviation', stddev, 0)
    .option('--num-dataset-entries <n>', 'distinct synthetic inputs, sent in turn', wholeNumber(1), 100);
}

/** The inputs to send and the tokenizer that counts them (close it after the run). */
export async function perfInputs(
  opts: PerfInputOptions,
  progress: (line: string) => void,
): Promise<{ inputs?: RequestInput[]; tokenizer?: NativeTokenizer }> {
  const synthetic = opts.syntheticInputTokensMean !== undefined;
  if (synthetic && opts.inputFile !== undefined) {
    throw new CliError('give --input-file or --synthetic-input-tokens-mean, not both', 2);
  }
  if (synthetic && opts.tokenizer === undefined) {
    throw new CliError(
      "synthetic prompts are cut to length by the pipeline's tokenizer: give --tokenizer (e.g. gpt2, or its tokenizer.json)",
      2,
    );
  }
  const tokenizer =
    opts.tokenizer === undefined ? undefined : await nativeTokenizer(opts.tokenizer, progress);
  try {
    const outputTokens =
      opts.outputTokensMean === undefined
        ? undefined
        : { mean: opts.outputTokensMean, stddev: opts.outputTokensStddev };
    let inputs: RequestInput[] | undefined;
    if (synthetic) {
      progress(`making ${opts.numDatasetEntries} synthetic prompts…`);
      inputs = await syntheticInputs(tokenizer!, {
        inputTokens: { mean: opts.syntheticInputTokensMean!, stddev: opts.syntheticInputTokensStddev },
        outputTokens,
        count: opts.numDatasetEntries,
        seed: opts.seed,
      });
    } else {
      inputs = opts.inputFile === undefined ? undefined : readInputDataset(opts.inputFile);
      if (outputTokens) {
        inputs = withOutputLengths(inputs ?? [{ text: opts.prompt }], outputTokens, {
          count: opts.numDatasetEntries,
          seed: opts.seed,
        });
      }
    }
    return { inputs, tokenizer };
  } catch (error) {
    tokenizer?.close();
    throw error instanceof CliError
      ? error
      : new CliError(error instanceof Error ? error.message : String(error));
  }
}
