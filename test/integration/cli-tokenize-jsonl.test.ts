/**
 * `triton-studio tokenize --jsonl`: a data set through the real native tokenizer in one process,
 * checked against Hugging Face `tokenizers` (npm) on the same tokenizer.json files.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { assembleTokenizers, type TokenizerName } from '../../scripts/assemble-tokenizers.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/triton-studio.js');
const scratch = mkdtempSync(join(tmpdir(), 'ts-cli-jsonl-'));
let files = {} as Record<TokenizerName, string>;
let texts: string[] = [];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin = ''): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
    child.stdin.on('error', () => undefined); // a run that stops at a bad line closes its stdin
    child.stdin.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const lines = (stdout: string): unknown[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);

beforeAll(async () => {
  files = await assembleTokenizers();
  // 2,000 real strings of the parity corpus (code, prose, ~35 languages, emoji), every 13th.
  texts = loadCorpus()
    .filter((e): e is { source: string; text: string } => 'text' in e)
    .filter((_, i) => i % 13 === 0)
    .slice(0, 2000)
    .map((e) => e.text);
  texts.push('', 'line one\nline two\r\n', 'special <|endoftext|> inside', 'tab\there');
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('tokenize --jsonl (a data set, one native process)', () => {
  for (const name of ['gpt2', 'llama-2'] as const) {
    it(`${name}: one id array per input line, as HF encodes each string, special tokens both ways`, async () => {
      const hf = Tokenizer.fromFile(files[name]);
      const input = texts.map((t) => JSON.stringify(t)).join('\n') + '\n';
      for (const special of [true, false]) {
        const run = await cli(
          ['tokenize', '--tokenizer', files[name], '--jsonl', ...(special ? [] : ['--no-special-tokens'])],
          input,
        );
        expect(run.code, run.stderr).toBe(0);
        const got = lines(run.stdout);
        expect(got).toHaveLength(texts.length);
        const want = await Promise.all(
          texts.map(async (t) => (await hf.encode(t, null, { addSpecialTokens: special })).getIds()),
        );
        expect(got).toEqual(want);
      }
    });
  }

  it('--decode: id arrays in, strings out, as HF decodes them (skip_special_tokens both ways)', async () => {
    const hf = Tokenizer.fromFile(files['llama-2']);
    const ids = await Promise.all(texts.map(async (t) => (await hf.encode(t)).getIds()));
    const file = join(scratch, 'ids.jsonl');
    writeFileSync(file, ids.map((i) => JSON.stringify(i)).join('\n'));
    for (const skip of [false, true]) {
      const run = await cli([
        'tokenize',
        '--tokenizer',
        files['llama-2'],
        '--jsonl',
        '--decode',
        '--file',
        file,
        ...(skip ? ['--skip-special-tokens'] : []),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const got = lines(run.stdout);
      const want = await Promise.all(ids.map((i) => hf.decode(i, skip)));
      expect(got).toHaveLength(want.length);
      // Line by line, so a failure names the ids and both texts (a 2,004-line diff is cut short).
      for (const [i, text] of want.entries()) {
        expect(got[i], `line ${i + 1}, skip ${skip}: ids ${JSON.stringify(ids[i])}`).toEqual(text);
      }
    }
  });

  it('stops at the first bad line, naming it, after answering the lines before it', async () => {
    const run = await cli(
      ['tokenize', '--tokenizer', 'gpt2', '--jsonl'],
      '"Hello world"\n\n{"text": "x"}\n"never"\n',
    );
    expect(run.code).toBe(1);
    expect(lines(run.stdout)).toEqual([[15496, 995]]);
    expect(run.stderr).toContain('line 3: expected a JSON string (one text per line)');
    const decode = await cli(['tokenize', '--tokenizer', 'gpt2', '--jsonl', '--decode'], '[15496, -1]\n');
    expect(decode.code).toBe(1);
    expect(decode.stderr).toContain('line 1: expected non-negative integer ids, found -1');
    const unknown = await cli(['tokenize', '--tokenizer', 'gpt2', '--jsonl', '--decode'], '[99999999]\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('line 1: Decode: id 99999999 is not in the vocabulary');
    const notJson = await cli(['tokenize', '--tokenizer', 'gpt2', '--jsonl'], 'plain text\n');
    expect(notJson.stderr).toContain('line 1: not JSON');
  });

  it('refuses text on the command line and --json beside it', async () => {
    const text = await cli(['tokenize', '--tokenizer', 'gpt2', '--jsonl', 'Hello']);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('--jsonl reads JSON lines from stdin (or --file)');
    const json = await cli(['tokenize', '--tokenizer', 'gpt2', '--jsonl', '--json'], '"x"\n');
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('leave out --json');
  });
});
