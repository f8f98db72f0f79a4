// Builds and drives the native `ts-tokenize` CLI (backends/tools) for tests, benchmarks and
// scripts: one process per batch of strings, JSON lines in and out.
import { spawnSync } from 'node:child_process';
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
): BatchOutput[] {
  const [command, ...prefix] = [...launcher, binary];
  return runJsonLines<BatchOutput>(command!, [...prefix, '--tokenizer', tokenizerFile], '--batch', inputs);
}

/**
 * Only the ids of each text, through `ts-tokenize --jsonl` in one process: half the cost of
 * `runBatch`, which also decodes and stream-decodes every input, for checks that compare ids alone.
 */
export function encodeIds(
  binary: string,
  tokenizerFile: string,
  texts: string[],
  addSpecialTokens: boolean,
): number[][] {
  const args = ['--tokenizer', tokenizerFile, ...(addSpecialTokens ? [] : ['--no-special-tokens'])];
  return runJsonLines<number[]>(binary, args, '--jsonl', texts);
}

/** One ts-tokenize process fed a JSON line per input; exactly one JSON line back per input. */
function runJsonLines<T>(
  command: string,
  args: string[],
  mode: '--batch' | '--jsonl',
  inputs: unknown[],
): T[] {
  const r = spawnSync(command, [...args, mode], {
    input: inputs.map((i) => JSON.stringify(i)).join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw new Error(`ts-tokenize ${mode}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`ts-tokenize ${mode} exited ${r.status}: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l.length > 0);
  if (lines.length !== inputs.length) {
    throw new Error(`ts-tokenize ${mode} answered ${lines.length} lines for ${inputs.length} inputs`);
  }
  return lines.map((l) => JSON.parse(l) as T);
}
