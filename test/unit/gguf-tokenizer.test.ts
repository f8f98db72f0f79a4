/**
 * Reading GGUF metadata and turning a GGUF tokenizer into Hugging Face files, on small GGUF files
 * written here byte by byte as the format specifies (ggml's gguf.h): values of every type, the
 * tokenizer pipeline chosen by `tokenizer.ggml.pre`, and clear errors for what is not GGUF or not
 * covered. (The real SmolLM2 file is checked against llama.cpp in tokenizer-gguf.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GgufError, readGgufMetadata, tokenizerFromGguf, type GgufValue } from '../../generator/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ts-gguf-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Typed = [type: number, value: unknown];
const u32 = (n: number) => Buffer.from(new Uint32Array([n]).buffer);
const u64 = (n: number) => Buffer.from(new BigUint64Array([BigInt(n)]).buffer);
const str = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);

function encode([type, value]: Typed): Buffer {
  switch (type) {
    case 4:
      return u32(value as number);
    case 5:
      return Buffer.from(new Int32Array([value as number]).buffer);
    case 6:
      return Buffer.from(new Float32Array([value as number]).buffer);
    case 7:
      return Buffer.from([value ? 1 : 0]);
    case 8:
      return str(value as string);
    case 10:
      return u64(value as number);
    case 9: {
      const [itemType, items] = value as [number, unknown[]];
      return Buffer.concat([u32(itemType), u64(items.length), ...items.map((v) => encode([itemType, v]))]);
    }
    default:
      throw new Error(`type ${type} not written by this test`);
  }
}

function gguf(name: string, pairs: Record<string, Typed>, header = { magic: 'GGUF', version: 3 }): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    Buffer.concat([
      Buffer.from(header.magic),
      u32(header.version),
      u64(0),
      u64(Object.keys(pairs).length),
      ...Object.entries(pairs).flatMap(([k, v]) => [str(k), u32(v[0]), encode(v)]),
    ]),
  );
  return file;
}

const TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', 'a', 'b', 'ab', 'Ġ', 'Ġab'];
function tokenizerPairs(pre: string, extra: Record<string, Typed> = {}): Record<string, Typed> {
  return {
    'general.architecture': [8, 'llama'],
    'llama.context_length': [4, 2048],
    'tokenizer.ggml.model': [8, 'gpt2'],
    'tokenizer.ggml.pre': [8, pre],
    'tokenizer.ggml.tokens': [9, [8, TOKENS]],
    'tokenizer.ggml.token_type': [9, [5, [3, 3, 3, 1, 1, 1, 1, 1]]],
    'tokenizer.ggml.merges': [9, [8, ['a b', 'Ġ ab']]],
    'tokenizer.ggml.bos_token_id': [4, 1],
    'tokenizer.ggml.eos_token_id': [4, 2],
    'tokenizer.ggml.padding_token_id': [4, 2],
    'tokenizer.chat_template': [8, "{% for m in messages %}{{ m['content'] }}{% endfor %}"],
    ...extra,
  };
}

describe('readGgufMetadata', () => {
  it('reads every key with its value: integers, floats, booleans, strings and arrays', () => {
    const meta = readGgufMetadata(
      gguf('types.gguf', {
        'a.u32': [4, 7],
        'a.i32': [5, -3],
        'a.f32': [6, 0.5],
        'a.bool': [7, true],
        'a.str': [8, 'héllo'],
        'a.u64': [10, 9],
        'a.arr': [9, [8, ['x', 'y']]],
      }),
    );
    expect(Object.fromEntries(meta)).toEqual<Record<string, GgufValue>>({
      'a.u32': 7,
      'a.i32': -3,
      'a.f32': 0.5,
      'a.bool': true,
      'a.str': 'héllo',
      'a.u64': 9n,
      'a.arr': ['x', 'y'],
    });
  });

  it('refuses a file that is not GGUF, a version it does not know, and a truncated file', () => {
    expect(() => readGgufMetadata(gguf('magic.gguf', {}, { magic: 'GGML', version: 3 }))).toThrow(
      /not a GGUF file/,
    );
    expect(() => readGgufMetadata(gguf('v9.gguf', {}, { magic: 'GGUF', version: 9 }))).toThrow(/version 9/);
    const file = join(dir, 'cut.gguf');
    writeFileSync(file, Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(2), str('only.one')]));
    expect(() => readGgufMetadata(file)).toThrow(/ends early/);
  });
});

describe('tokenizerFromGguf', () => {
  it('writes byte-level BPE with the pre-tokenizer llama.cpp names, control tokens as special added tokens', () => {
    const { tokenizer, config } = tokenizerFromGguf(
      readGgufMetadata(gguf('smollm.gguf', tokenizerPairs('smollm'))),
    );
    expect(tokenizer.pre_tokenizer).toEqual({
      type: 'Sequence',
      pretokenizers: [
        { type: 'Digits', individual_digits: true },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      ],
    });
    const model = tokenizer.model as { type: string; vocab: Record<string, number>; merges: string[] };
    expect(model.type).toBe('BPE');
    expect(model.vocab).toEqual(Object.fromEntries(TOKENS.map((t, i) => [t, i])));
    expect(model.merges).toEqual(['a b', 'Ġ ab']);
    expect(
      (tokenizer.added_tokens as { id: number; content: string; special: boolean }[]).map((t) => [
        t.id,
        t.content,
        t.special,
      ]),
    ).toEqual([
      [0, '<|endoftext|>', true],
      [1, '<|im_start|>', true],
      [2, '<|im_end|>', true],
    ]);
    expect(tokenizer.post_processor).toMatchObject({ type: 'ByteLevel' });
    expect(config).toMatchObject({
      bos_token: '<|im_start|>',
      eos_token: '<|im_end|>',
      pad_token: '<|im_end|>',
      add_bos_token: false,
      model_max_length: 2048,
      chat_template: "{% for m in messages %}{{ m['content'] }}{% endfor %}",
    });
  });

  it('adds the BOS token through a template when the GGUF asks for it; plain GPT-2 splitting for gpt-2', () => {
    const { tokenizer, config } = tokenizerFromGguf(
      readGgufMetadata(
        gguf('bos.gguf', tokenizerPairs('gpt-2', { 'tokenizer.ggml.add_bos_token': [7, true] })),
      ),
    );
    expect(tokenizer.pre_tokenizer).toMatchObject({ type: 'ByteLevel' });
    expect(tokenizer.post_processor).toMatchObject({
      type: 'TemplateProcessing',
      special_tokens: { '<|im_start|>': { ids: [1] } },
    });
    expect(config.add_bos_token).toBe(true);
  });

  it('says what is not covered: another tokenizer model, an unknown pre-tokenizer, no tokenizer at all', () => {
    const meta = (pairs: Record<string, Typed>, name: string) => readGgufMetadata(gguf(name, pairs));
    expect(() =>
      tokenizerFromGguf(meta(tokenizerPairs('smollm', { 'tokenizer.ggml.model': [8, 'llama'] }), 'spm.gguf')),
    ).toThrow(/tokenizer.ggml.model "llama" is not imported yet/);
    expect(() => tokenizerFromGguf(meta(tokenizerPairs('qwen2'), 'qwen.gguf'))).toThrow(
      /"qwen2".*known: gpt-2/,
    );
    expect(() => tokenizerFromGguf(meta({ 'general.architecture': [8, 'llama'] }, 'none.gguf'))).toThrow(
      GgufError,
    );
  });
});
