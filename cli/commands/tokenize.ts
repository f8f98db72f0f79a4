import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { resolveTokenizer, buildBackends, defaultTokenizerSearchDirs } from '../../generator/index.js';
import { action } from '../action.js';
import { CliError } from '../io.js';
import { packageRoot } from '../../client/index.js';

interface TokenizeOptions {
  tokenizer: string;
  decode?: boolean;
  specialTokens: boolean;
  skipSpecialTokens?: boolean;
}

export function tokenizeCommand(): Command {
  return new Command('tokenize')
    .description('encode text to ids (or decode ids to text) with the native C++ tokenizer the steps use')
    .argument('<text-or-ids>', 'text to encode, or ids ("1,2,3", "1 2 3", "[1,2,3]") with --decode')
    .requiredOption(
      '--tokenizer <file>',
      'a tokenizer.json, a folder holding one, or a known name (gpt2, llama-2, …)',
    )
    .option('--decode', 'decode ids to text')
    .option('--no-special-tokens', "encode without the template's special tokens (e.g. BOS)")
    .option('--skip-special-tokens', 'leave special tokens out of decoded text')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, input: string, opts: TokenizeOptions) => {
        const tokenizer = tokenizerFile(opts.tokenizer);
        const binary = await tokenizeBinary(out.progress.bind(out));
        const args = ['--tokenizer', tokenizer, '--json'];
        if (opts.decode) args.push('--decode');
        if (!opts.specialTokens) args.push('--no-special-tokens');
        if (opts.skipSpecialTokens) args.push('--skip-special-tokens');
        const result = await run(binary, [...args, '--', input]);
        const parsed = JSON.parse(result) as { ids?: number[]; text?: string };
        out.result({ ok: true, tokenizer, ...parsed });
        out.info(parsed.ids ? parsed.ids.join(' ') : (parsed.text ?? ''));
      }),
    );
}

/** A path (relative to the working folder) or a known tokenizer name, found the way pipelines find them. */
function tokenizerFile(ref: string): string {
  // resolveTokenizer resolves paths against a pipeline file's folder: the working folder here.
  const found = resolveTokenizer(ref, join(process.cwd(), 'command-line'), defaultTokenizerSearchDirs());
  if (found.file) return found.file;
  throw new CliError(
    `tokenizer '${ref}' not found (looked at ${found.tried.join(', ')}): give a tokenizer.json path`,
  );
}

/** build/backends/tools/ts-tokenize, built (incrementally, by CMake) before use. */
async function tokenizeBinary(progress: (line: string) => void): Promise<string> {
  const buildDir = join(packageRoot(), 'build', 'backends');
  const binary = join(buildDir, 'tools', 'ts-tokenize');
  if (!existsSync(binary)) progress('building the native tokenizer (ts-tokenize), once…');
  await buildBackends({ buildDir, targets: ['ts-tokenize'] });
  return binary;
}

function run(binary: string, args: string[]): Promise<string> {
  return new Promise((resolveRun, reject) => {
    execFile(binary, args, { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const message = stderr.trim().replace(/^ts-tokenize: /, '') || error.message;
        reject(new CliError(message, typeof error.code === 'number' && error.code === 2 ? 2 : 1));
      } else {
        resolveRun(stdout);
      }
    });
  });
}
