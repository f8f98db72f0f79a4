// Bad input never crashes the native tokenizer: unsupported configurations are rejected at load
// with the offending field named, fuzzer findings stay fixed, the CLI explains its usage, and
// 10 MB inputs encode exactly like Hugging Face `tokenizers`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tokenizer } from 'tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize, repoRoot, runBatch } from '../../bench/tokenizers/native.js';
import { assembleTokenizers, type TokenizerName } from '../../scripts/assemble-tokenizers.js';

let binary = '';
let files = {} as Record<TokenizerName, string>;
let dir = '';

beforeAll(async () => {
  binary = await ensureTsTokenize();
  files = await assembleTokenizers();
  dir = mkdtempSync(path.join(tmpdir(), 'ts-tok-robust-'));
});

function cli(args: string[]): {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
} {
  const r = spawnSync(binary, args, { encoding: 'utf8' });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

function withChange(from: TokenizerName, change: (t: Record<string, unknown>) => void): string {
  const t = JSON.parse(readFileSync(files[from], 'utf8')) as Record<string, unknown>;
  change(t);
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(t));
  return file;
}

describe('unsupported configurations are rejected at load, naming the field', () => {
  const cases: [string, TokenizerName, (t: Record<string, unknown>) => void, RegExp][] = [
    [
      'an unknown pre-tokenizer',
      'gpt2',
      (t) => (t.pre_tokenizer = { type: 'Foo' }),
      /pre_tokenizer\.type: unsupported pre-tokenizer 'Foo'/,
    ],
    [
      'a Unigram model whose vocabulary is a BPE one',
      'gpt2',
      (t) => ((t.model as Record<string, unknown>).type = 'Unigram'),
      /model\.vocab: expected an array of \[piece, score\] pairs/,
    ],
    [
      'BPE dropout',
      'llama-2',
      (t) => ((t.model as Record<string, unknown>).dropout = 0.1),
      /model\.dropout: unsupported/,
    ],
    [
      'a Split regex that Oniguruma cannot compile',
      'gpt2',
      (t) =>
        (t.pre_tokenizer = {
          type: 'Split',
          pattern: { Regex: '(\\s+' },
          behavior: 'Isolated',
          invert: false,
        }),
      /pre_tokenizer\.pattern\.Regex: invalid regex \(\\s\+: end pattern with unmatched parenthesis/,
    ],
    [
      'an empty Precompiled charsmap',
      'llama-2',
      (t) => (t.normalizer = { type: 'Precompiled', precompiled_charsmap: '' }),
      /normalizer\.precompiled_charsmap: charsmap shorter than its 4-byte header \(expected SentencePiece's/,
    ],
    [
      'a Precompiled charsmap that is not base64',
      'llama-2',
      (t) => (t.normalizer = { type: 'Precompiled', precompiled_charsmap: 'not base64!' }),
      /normalizer\.precompiled_charsmap: not standard base64 with padding/,
    ],
    [
      'an unknown option of a known part',
      'bert-base-uncased',
      (t) => ((t.normalizer as Record<string, unknown>).fancy = true),
      /normalizer\.fancy: unsupported option/,
    ],
    [
      'a decoder nested in a Sequence',
      'llama-2',
      (t) => (((t.decoder as Record<string, unknown>).decoders as unknown[])[1] = { type: 'Wordpiece' }),
      /decoder\.decoders\[1\]\.type: unsupported decoder 'Wordpiece'/,
    ],
    [
      'a merge of unknown tokens',
      'gpt2',
      (t) => ((t.model as Record<string, unknown>).merges as unknown[]).push('zzzq qqqz'),
      /model\.merges\[50000\]: 'zzzq' is not in the vocabulary/,
    ],
    [
      'a vocabulary that is not an object',
      'gpt2',
      (t) => ((t.model as Record<string, unknown>).vocab = [['hello', 1]]),
      /model\.vocab: expected an object \{token: id\}/,
    ],
    [
      'a vocabulary entry that is not an id',
      'bert-base-uncased',
      (t) => (((t.model as Record<string, unknown>).vocab as Record<string, unknown>).hello = [1]),
      /model\.vocab\["hello"\]: expected a non-negative id/,
    ],
    [
      'a vocabulary id too large to be real',
      'gpt2',
      (t) => (((t.model as Record<string, unknown>).vocab as Record<string, unknown>).zzzq = 2 ** 24),
      /model\.vocab\["zzzq"\]: id 16777216 is too large/,
    ],
    [
      'merges that are not an array',
      'gpt2',
      (t) => ((t.model as Record<string, unknown>).merges = 'a b'),
      /model\.merges: expected an array/,
    ],
    [
      'a merge without a space',
      'llama-2',
      (t) => ((t.model as Record<string, unknown>).merges as unknown[]).splice(3, 0, 'ab'),
      /model\.merges\[3\]: expected "left right"/,
    ],
    [
      'a merge pair of three strings',
      'gpt2',
      (t) => ((t.model as Record<string, unknown>).merges as unknown[]).splice(7, 0, ['a', 'b', 'c']),
      /model\.merges\[7\]: expected "left right" or \["left", "right"\]/,
    ],
    [
      'merges on a WordPiece model',
      'bert-base-uncased',
      (t) => ((t.model as Record<string, unknown>).merges = ['a b']),
      /model\.merges: unsupported option/,
    ],
  ];
  for (const [what, from, change, message] of cases) {
    it(`rejects ${what}`, () => {
      const r = cli(['--tokenizer', withChange(from, change), 'hello']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
    });
  }

  // Each stage's error lists the types its factory table registers: every one listed must be
  // accepted as a type (it may still want more fields), so the message never promises too much.
  const stages: [string, string, (t: Record<string, unknown>, type: string) => void][] = [
    ['normalizer', 'normalizer', (t, type) => (t.normalizer = { type })],
    ['pre-tokenizer', 'pre_tokenizer', (t, type) => (t.pre_tokenizer = { type })],
    ['model', 'model', (t, type) => ((t.model as Record<string, unknown>).type = type)],
    ['post-processor', 'post_processor', (t, type) => (t.post_processor = { type })],
    ['decoder', 'decoder', (t, type) => (t.decoder = { type })],
  ];
  for (const [stage, field, setType] of stages) {
    it(`lists in its ${stage} error exactly the ${stage} types it accepts`, () => {
      const r = cli(['--tokenizer', withChange('gpt2', (t) => setType(t, 'NoSuchType')), 'hi']);
      const listed = new RegExp(
        `${field}\\.type: unsupported ${stage} 'NoSuchType' \\(supported: ([^)]*)\\)`,
      ).exec(r.stderr);
      expect(listed, r.stderr).not.toBeNull();
      const types = listed![1]!.split(', ');
      expect(types.length).toBeGreaterThan(1);
      for (const type of types) {
        const err = cli(['--tokenizer', withChange('gpt2', (t) => setType(t, type)), 'hi']).stderr;
        expect(err).not.toMatch(`unsupported ${stage} '${type}'`);
      }
    });
  }

  it('reads merges written as ["left", "right"] pairs like the "left right" strings', () => {
    const pairs = withChange('gpt2', (t) => {
      const model = t.model as Record<string, unknown>;
      model.merges = (model.merges as string[]).map((m) => m.split(' '));
    });
    expect(cli(['--tokenizer', pairs, 'Hello world, merged']).stdout).toBe(
      cli(['--tokenizer', files.gpt2, 'Hello world, merged']).stdout,
    );
  });

  it('gives an id two tokens share to the greater token, the same way on every load', () => {
    // HF's own choice here depends on hash order; ours is fixed.
    const shared = withChange('bert-base-uncased', (t) => {
      ((t.model as Record<string, unknown>).vocab as Record<string, unknown>).zzzq = 7592; // "hello"'s id
    });
    for (let i = 0; i < 2; ++i) {
      expect(cli(['--tokenizer', shared, '--decode', '7592']).stdout).toBe('zzzq\n');
      expect(cli(['--tokenizer', shared, '--no-special-tokens', 'hello zzzq']).stdout).toBe(
        '3109 2080 7592\n',
      ); // "hello" lost its id: hell ##o
    }
  });

  it('says which file it cannot open', () => {
    const r = cli(['--tokenizer', path.join(dir, 'missing.json'), 'hello']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot open tokenizer file '.*missing\.json' \(check the path\)/);
  });

  it('reports malformed JSON as such', () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, '{"model": ');
    const r = cli(['--tokenizer', file, 'hello']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON/);
  });
});

describe('a regex that backtracks catastrophically', () => {
  it('is stopped by the backtracking limits with an error naming the pattern, in well under a second', () => {
    const file = withChange('gpt2', (t) => {
      t.pre_tokenizer = {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { Regex: '(a+)+b' }, behavior: 'Isolated', invert: false },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
        ],
      };
    });
    expect(cli(['--tokenizer', file, 'aaab aab']).status).toBe(0);
    const started = Date.now();
    const r = cli(['--tokenizer', file, `${'a'.repeat(64)}c`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex regex \(a\+\)\+b failed on a 65-byte piece: the regex backtracks too much on this input \(retry-limit-in-match over\)/,
    );
    expect(Date.now() - started).toBeLessThan(10_000); // the exponential search would take years
  });
});

describe('fuzzer findings stay fixed', () => {
  const regressions = path.join(repoRoot, 'backends/tokenizers/fuzz/regressions/load');
  for (const name of readdirSync(regressions)) {
    it(`loading ${name} fails with a TokenizerError, not a crash`, () => {
      const r = cli(['--tokenizer', path.join(regressions, name), 'hello']);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^ts-tokenize: .*tokenizer\.json/);
    });
  }
});

describe('the ts-tokenize CLI', () => {
  it('encodes text and prints ids, and --json prints them as JSON', () => {
    expect(cli(['--tokenizer', files.gpt2, 'Hello world']).stdout).toBe('15496 995\n');
    expect(JSON.parse(cli(['--tokenizer', files['llama-2'], '--json', 'I am going to']).stdout)).toEqual({
      ids: [1, 306, 626, 2675, 304],
    });
    expect(cli(['--tokenizer', files['llama-2'], '--no-special-tokens', 'I am going to']).stdout).toBe(
      '306 626 2675 304\n',
    );
  });
  it('decodes comma, space or JSON-array separated ids', () => {
    for (const ids of ['15496,995', '15496 995', '[15496, 995]']) {
      expect(cli(['--tokenizer', files.gpt2, '--decode', ids]).stdout).toBe('Hello world\n');
    }
    expect(
      cli(['--tokenizer', files['bert-base-uncased'], '--decode', '--skip-special-tokens', '101,7592,102'])
        .stdout,
    ).toBe('hello\n');
  });
  it('explains usage errors with exit code 2', () => {
    for (const args of [
      [],
      ['hello'],
      ['--tokenizer', files.gpt2],
      ['--tokenizer', files.gpt2, '--bogus', 'x'],
    ]) {
      const r = cli(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/usage: ts-tokenize/);
    }
  });
  it('rejects ids that are not numbers', () => {
    const r = cli(['--tokenizer', files.gpt2, '--decode', '12,abc']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/IDS: unexpected 'a'/);
  });
});

describe('10 MB inputs', () => {
  // Mixed prose, code and CJK, repeated to 10 MB: one pre-token for Llama (no pre-tokenizer).
  const unit = 'The quick brown fox — 東京タワー — def f(x):\n    return x ** 2  # ok\n';
  const big = unit.repeat(Math.ceil(10_000_000 / Buffer.byteLength(unit)));
  for (const name of ['gpt2', 'llama-2', 'bert-base-uncased'] as const) {
    it(`${name}: encodes ${(Buffer.byteLength(big) / 1e6).toFixed(1)} MB exactly like HF`, async () => {
      const [native] = await runBatch(binary, files[name], [{ text: big }]);
      const expected = (await Tokenizer.fromFile(files[name]).encode(big)).getIds();
      expect(native!.error).toBeUndefined();
      expect(native!.ids!.length).toBe(expected.length);
      expect(native!.ids).toEqual(expected);
      expect(native!.stream).toBe(native!.text);
    });
  }
});
