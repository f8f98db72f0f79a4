/** `triton-studio tokenize`: text to ids (and back) with the native tokenizer. */
import { execFile, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { action } from '../action.js';
import { CliError } from '../io.js';
import { tokenizeTool } from '../../client/index.js';
import { tokenizerFile } from '../nativeTokenizer.js';

interface TokenizeOptions {
  tokenizer: string;
  decode?: boolean;
  specialTokens: boolean;
  skipSpecialTokens?: boolean;
  file?: string;
  jsonl?: boolean;
  json?: boolean;
}

export function tokenizeCommand(): Command {
  return new Command('tokenize')
    .description('encode text to ids (or decode ids to text) with the native C++ tokenizer the steps use')
    .argument(
      '[text-or-ids]',
      'text to encode, or ids ("1,2,3", "1 2 3", "[1,2,3]") with --decode; "-" reads it from stdin',
    )
    .requiredOption(
      '--tokenizer <file>',
      'a tokenizer.json, a folder holding one, or a known name (gpt2, llama-2, …)',
    )
    .option('--file <path>', 'read the text (or ids) from a file: no command-line length limit')
    .option('--decode', 'decode ids to text')
    .option('--no-special-tokens', "encode without the template's special tokens (e.g. BOS)")
    .option('--skip-special-tokens', 'leave special tokens out of decoded text')
    .option('--json', 'print the result as JSON')
    .option(
      '--jsonl',
      'a data set: one JSON string per line on stdin (or --file) -> one JSON id array per line on stdout, the tokenizer loaded once (--decode: id arrays in, strings out)',
    )
    .action(
      action(async (out, input: string | undefined, opts: TokenizeOptions) => {
        if (opts.jsonl) return jsonl(out.progress.bind(out), input, opts);
        if ((input === undefined) === (opts.file === undefined)) {
          throw new CliError('give the text (or "-" for stdin) or --file <path>, one of them', 2);
        }
        const tokenizer = tokenizerFile(opts.tokenizer);
        const binary = await tokenizeTool(out.progress.bind(out));
        const args = ['--tokenizer', tokenizer, '--json'];
        if (!opts.specialTokens) args.push('--no-special-tokens');
        if (opts.skipSpecialTokens) args.push('--skip-special-tokens');
        let parsed: { ids?: number[]; text?: string };
        if (input !== undefined && input !== '-') {
          if (opts.decode) args.push('--decode');
          parsed = JSON.parse(await run(binary, [...args, '--', input])) as typeof parsed;
        } else {
          // From stdin or a file: one request through ts-tokenize --batch on its stdin, so the
          // text's size is not limited by the command line (~128 KB per argument).
          const content = opts.file !== undefined ? readText(opts.file) : readFileSync(0, 'utf8');
          const request = opts.decode ? { ids: parseIds(content) } : { text: content };
          const answer = await runBatch(binary, args, request);
          parsed = opts.decode ? { text: answer.text } : { ids: answer.ids };
        }
        out.result({ ok: true, tokenizer, ...parsed });
        out.info(parsed.ids ? parsed.ids.join(' ') : (parsed.text ?? ''));
      }),
    );
}

/**
 * `--jsonl`: ts-tokenize reads the lines straight from stdin (or the file) and writes its answers
 * straight to stdout, so a data set streams through one native process without passing through
 * JavaScript.
 */
async function jsonl(
  progress: (line: string) => void,
  input: string | undefined,
  opts: TokenizeOptions,
): Promise<number> {
  if (input !== undefined && input !== '-') {
    throw new CliError('--jsonl reads JSON lines from stdin (or --file), not from the command line', 2);
  }
  if (input !== undefined && opts.file !== undefined)
    throw new CliError('give "-" or --file <path>, not both', 2);
  if (opts.json) throw new CliError('--jsonl writes JSON lines itself: leave out --json', 2);
  const tokenizer = tokenizerFile(opts.tokenizer);
  const binary = await tokenizeTool(progress);
  const args = ['--tokenizer', tokenizer, '--jsonl'];
  if (opts.decode) args.push('--decode');
  if (!opts.specialTokens) args.push('--no-special-tokens');
  if (opts.skipSpecialTokens) args.push('--skip-special-tokens');
  let fd: number | undefined;
  if (opts.file !== undefined) {
    try {
      fd = openSync(opts.file, 'r');
    } catch (e) {
      throw new CliError(`cannot read --file ${opts.file}: ${(e as Error).message}`);
    }
  }
  try {
    return await new Promise<number>((resolveRun, reject) => {
      const child = spawn(binary, args, { stdio: [fd ?? 'inherit', 'inherit', 'pipe'] });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0) resolveRun(0);
        else
          reject(
            new CliError(stderr.trim().replace(/^ts-tokenize: /, '') || `ts-tokenize exited with ${code}`),
          );
      });
    });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read --file ${file}: ${(e as Error).message}`);
  }
}

/** Ids as ts-tokenize reads them: non-negative integers separated by commas, spaces or brackets. */
function parseIds(content: string): number[] {
  return content
    .split(/[\s,[\]]+/)
    .filter((t) => t !== '')
    .map((t) => {
      if (!/^\d+$/.test(t) || Number(t) > 0xffffffff) {
        throw new CliError(`IDS: unexpected '${t}' (give non-negative integers, e.g. 15496,995)`);
      }
      return Number(t);
    });
}

function runBatch(
  binary: string,
  args: string[],
  request: { text: string } | { ids: number[] },
): Promise<{ ids: number[]; text: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(binary, [...args, '--batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(
          new CliError(stderr.trim().replace(/^ts-tokenize: /, '') || `ts-tokenize exited with ${code}`),
        );
        return;
      }
      const answer = JSON.parse(stdout.trim().split('\n')[0] ?? '{}') as {
        ids: number[];
        text: string;
        error?: string;
      };
      if (answer.error !== undefined) reject(new CliError(answer.error));
      else resolveRun(answer);
    });
    child.stdin.on('error', () => undefined); // a tokenizer that fails to load closes stdin early
    child.stdin.end(`${JSON.stringify(request)}\n`);
  });
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
