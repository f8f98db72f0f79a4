// Builds and drives the native `ts-tokenize` CLI (backends/tools) for tests, benchmarks and
// scripts: one process per batch of strings, JSON lines in and out.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { buildBackends } from '../../generator/build/index.js';

export const repoRoot = path.resolve(__dirname, '../..');

/**
 * Builds a tool target of backends/ (the tokenizer library and `target`) in build/backends, the
 * tree generator/build uses, under its lock: another process (a test building a repository, the
 * CLI) may be building that tree at the same time. Returns the executable's path. The incremental
 * build is a no-op when nothing changed.
 */
export async function ensureNativeTool(target: 'ts-tokenize' | 'ts-tokenize-bench'): Promise<string> {
  const { buildDir } = await buildBackends({ projectRoot: repoRoot, targets: [target] });
  const binary = path.join(buildDir, 'tools', target);
  if (!existsSync(binary)) throw new Error(`build finished but ${binary} is missing`);
  return binary;
}

/** The native tokenizer CLI, built if needed. */
export function ensureTsTokenize(): Promise<string> {
  return ensureNativeTool('ts-tokenize');
}

/** One batch-mode input line. */
export type BatchInput =
  | { text: string; add_special_tokens?: boolean; skip_special_tokens?: boolean }
  | { hex: string; add_special_tokens?: boolean; skip_special_tokens?: boolean }
  | { ids: number[]; skip_special_tokens?: boolean };

/** One batch-mode output line. */
export interface BatchOutput {
  ids?: number[];
  text?: string;
  stream?: string;
  error?: string;
}

/**
 * Runs `ts-tokenize --batch` on all inputs in one process and returns one output per input.
 * `launcher` runs a binary built for another CPU (qemu-user and its loader: emulationPrefix).
 */
export function runBatch(
  binary: string,
  tokenizerFile: string,
  inputs: BatchInput[],
  launcher: string[] = [],
): Promise<BatchOutput[]> {
  const [command, ...prefix] = [...launcher, binary];
  return runJsonLines<BatchOutput>(command!, [...prefix, '--tokenizer', tokenizerFile], '--batch', inputs);
}

/**
 * Only the ids of each text, through `ts-tokenize --jsonl` in one process: half the cost of
 * `runBatch`, which also decodes and stream-decodes every input, for checks that compare ids alone.
 * The lines go through `Tokenizer::EncodeFlat` in batches (runBatch: one `Encode` per input).
 */
export function encodeIds(
  binary: string,
  tokenizerFile: string,
  texts: string[],
  addSpecialTokens: boolean,
  launcher: string[] = [],
): Promise<number[][]> {
  const [command, ...prefix] = [...launcher, binary];
  const args = [
    ...prefix,
    '--tokenizer',
    tokenizerFile,
    ...(addSpecialTokens ? [] : ['--no-special-tokens']),
  ];
  return runJsonLines<number[]>(command!, args, '--jsonl', texts);
}

/** Inputs written to the tool per write; its answers are parsed as they arrive. */
const SLICE = 4096;

/**
 * One ts-tokenize process fed a JSON line per input; exactly one JSON line back per input.
 * Asynchronous and in slices, never one blocking call: a vitest worker that holds its event loop
 * for 60 s (a million inputs, on a loaded CI box) misses the answer to its own report and the run
 * exits 1 with every test passed (vitest's worker RPC timeout, fixed at 60 s).
 */
async function runJsonLines<T>(
  command: string,
  args: string[],
  mode: '--batch' | '--jsonl',
  inputs: unknown[],
): Promise<T[]> {
  const child = spawn(command, [...args, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
  const answers: T[] = [];
  // The start of a line not yet ended: an answer can span many chunks (the ids of 10 MB).
  let partial: string[] = [];
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      const line = partial.join('') + chunk.slice(start, end);
      partial = [];
      if (line.length > 0) answers.push(JSON.parse(line) as T);
      start = end + 1;
    }
    if (start < chunk.length) partial.push(chunk.slice(start));
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  // A tool that exits early closes the pipe: its exit status says why, not the EPIPE.
  child.stdin.on('error', () => undefined);
  for (let i = 0; i < inputs.length && child.stdin.writable; i += SLICE) {
    const lines = inputs.slice(i, i + SLICE).map((input) => JSON.stringify(input));
    if (!child.stdin.write(lines.join('\n') + '\n')) {
      await new Promise<void>((resolve) => {
        // Whichever comes first; the other listener goes too, or they pile up over the slices.
        const done = (): void => {
          child.stdin.off('drain', done);
          child.stdin.off('close', done);
          resolve();
        };
        child.stdin.once('drain', done);
        child.stdin.once('close', done);
      });
    }
  }
  child.stdin.end();
  let status: number | null;
  try {
    status = await closed;
  } catch (error) {
    throw new Error(`ts-tokenize ${mode}: ${(error as Error).message}`);
  }
  if (status !== 0) throw new Error(`ts-tokenize ${mode} exited ${status}: ${stderr}`);
  if (partial.length > 0) answers.push(JSON.parse(partial.join('')) as T);
  if (answers.length !== inputs.length) {
    throw new Error(`ts-tokenize ${mode} answered ${answers.length} lines for ${inputs.length} inputs`);
  }
  return answers;
}
