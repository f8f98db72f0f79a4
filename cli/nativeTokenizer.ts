/** The native tokenizer for commands: a tokenizer named on the command line, and the ts-tokenize tool (built on first use). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildBackends, defaultTokenizerSearchDirs, resolveTokenizer } from '../generator/index.js';
import { NativeTokenizer, packageRoot } from '../client/index.js';
import { CliError } from './io.js';

/** A path (relative to the working folder) or a known tokenizer name, found the way pipelines find them. */
export function tokenizerFile(ref: string): string {
  // resolveTokenizer resolves paths against a pipeline file's folder: the working folder here.
  const found = resolveTokenizer(ref, join(process.cwd(), 'command-line'), defaultTokenizerSearchDirs());
  if (found.file) return found.file;
  throw new CliError(
    `tokenizer '${ref}' not found (looked at ${found.tried.join(', ')}): give a tokenizer.json path`,
  );
}

/** build/backends/tools/ts-tokenize, built (incrementally, by CMake) before use. */
export async function tokenizeBinary(progress: (line: string) => void): Promise<string> {
  const buildDir = join(packageRoot(), 'build', 'backends');
  const binary = join(buildDir, 'tools', 'ts-tokenize');
  if (!existsSync(binary)) progress('building the native tokenizer (ts-tokenize), once…');
  await buildBackends({ buildDir, targets: ['ts-tokenize'] });
  return binary;
}

/** A running native tokenizer for `--tokenizer REF` (close it when done). */
export async function nativeTokenizer(
  ref: string,
  progress: (line: string) => void,
): Promise<NativeTokenizer> {
  return new NativeTokenizer(await tokenizeBinary(progress), tokenizerFile(ref));
}
