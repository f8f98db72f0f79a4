/** What each request of a latency test sends: a fixed prompt, or a dataset cycled in order. */
import { readFileSync } from 'node:fs';

export interface RequestInput {
  text: string;
  /** Tokens to generate; the test's `maxTokens` when absent. */
  maxTokens?: number;
  /** The prompt's length in tokens, when already counted (synthetic prompts). */
  inputTokens?: number;
}

/**
 * Reads a JSONL dataset in GenAI-Perf / AIPerf's single-turn input shape: one object per line
 * with the prompt as `text` (or `text_input`, `prompt`) and optionally the output length as
 * `output_length` (or `max_tokens`).
 */
export function readInputDataset(file: string): RequestInput[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read the dataset ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const inputs: RequestInput[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = `${file}:${i + 1}`;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${where}: not JSON (a dataset has one JSON object per line)`);
    }
    const prompt = entry.text ?? entry.text_input ?? entry.prompt;
    if (typeof prompt !== 'string')
      throw new Error(`${where}: needs a string "text" (or "text_input", "prompt")`);
    const length = entry.output_length ?? entry.max_tokens;
    if (length !== undefined && !(Number.isInteger(length) && (length as number) >= 1)) {
      throw new Error(`${where}: "output_length" must be a whole number ≥ 1`);
    }
    inputs.push({ text: prompt, maxTokens: length as number | undefined });
  }
  if (inputs.length === 0) throw new Error(`${file} holds no prompts`);
  return inputs;
}

/** Inputs in turn: request i sends inputs[i mod n] (deterministic, so runs are comparable). */
export function cycle(inputs: readonly RequestInput[]): () => RequestInput {
  let next = 0;
  return () => inputs[next++ % inputs.length]!;
}
