// Builds and drives the native `ts-tokenize` CLI (backends/tools) for tests, benchmarks and
// scripts: one process per batch of strings, JSON lines in and out.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../..');
export const buildDir = path.join(repoRoot, 'build/backends');

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`${what}: cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) {
    const log = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(`${what} failed (${cmd} ${args.join(' ')} exited ${r.status}):\n${log}`);
  }
}

function requireTool(cmd: string, hint: string): void {
  const r = spawnSync(cmd, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`${cmd} is not installed or not on PATH: ${hint}`);
}

/**
 * Configures (once) and builds a target of backends/ (the tokenizer library and `target`) in
 * build/backends with CMake, then returns the executable's path. The incremental build is a no-op
 * when nothing changed.
 */
export function ensureNativeTool(target: 'ts-tokenize' | 'ts-tokenize-bench'): string {
  requireTool('cmake', 'install it (apt-get install cmake, or `npm run setup`)');
  requireTool(process.env.CXX ?? 'c++', 'install a C++17 compiler (apt-get install g++, or `npm run setup`)');
  if (!existsSync(path.join(buildDir, 'CMakeCache.txt'))) {
    run('cmake', ['-S', 'backends', '-B', buildDir], 'configuring backends/ with CMake');
  }
  run('cmake', ['--build', buildDir, '--target', target, '-j2'], `building ${target}`);
  const binary = path.join(buildDir, 'tools', target);
  if (!existsSync(binary)) throw new Error(`build finished but ${binary} is missing`);
  return binary;
}

/** The native tokenizer CLI, built if needed. */
export function ensureTsTokenize(): string {
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
  const input = inputs.map((i) => JSON.stringify(i)).join('\n') + '\n';
  const [command, ...prefix] = [...launcher, binary];
  const r = spawnSync(command!, [...prefix, '--tokenizer', tokenizerFile, '--batch'], {
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw new Error(`ts-tokenize --batch: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`ts-tokenize --batch exited ${r.status}: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l.length > 0);
  if (lines.length !== inputs.length) {
    throw new Error(`ts-tokenize --batch answered ${lines.length} lines for ${inputs.length} inputs`);
  }
  return lines.map((l) => JSON.parse(l) as BatchOutput);
}
