/** The native tokenizer for commands: a tokenizer named on the command line (the tool that runs it: client/tokenizer). */
import { join } from 'node:path';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../generator/index.js';
import { openNativeTokenizer, type NativeTokenizer } from '../client/index.js';
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

/** A running native tokenizer for `--tokenizer REF` (close it when done). */
export async function nativeTokenizer(
  ref: string,
  progress: (line: string) => void,
): Promise<NativeTokenizer> {
  return openNativeTokenizer(tokenizerFile(ref), progress);
}
