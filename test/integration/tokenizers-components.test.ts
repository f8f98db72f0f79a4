// Each pipeline component the library implements, checked against Hugging Face `tokenizers` on
// tokenizer.json variants: the assembled tokenizers with one part swapped for another (normalizers,
// pre-tokenizers and their split behaviours, post-processors, decoders, added-token options,
// truncation and padding). Same inputs, same ids, same decoded text, streaming == full decode.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import {
  HAND_PICKED,
  INVALID_UTF8_HEX,
  randomMixes,
  whitespaceRuns,
} from '../../bench/tokenizers/edge-cases.js';
import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { assembleTokenizers, type TokenizerName } from '../../scripts/assemble-tokenizers.js';
import { readFileSync } from 'node:fs';

type Json = Record<string, unknown>;

const inputs: ParityInput[] = [
  ...HAND_PICKED.map((text) => ({ text })),
  ...whitespaceRuns(12).map((text) => ({ text })),
  ...randomMixes(400, 99, 50).map((text) => ({ text })),
  ...[
    'ＡＢＣ１２３ ﬁne ① ㍿ Å Å',
    '  hello world  hello_world helloworld world!',
    'split  on   spaces ▁x',
    'digits 2024 and ٣٤٥ and 12a34',
    'a<mask>b a <mask> b <mask>',
    'HELLO Hello hello',
  ].map((text) => ({ text })),
  ...INVALID_UTF8_HEX.map((hex) => ({ hex })),
];

let binary = '';
let base = {} as Record<TokenizerName, Json>;
let dir = '';

beforeAll(async () => {
  binary = await ensureTsTokenize();
  const files = await assembleTokenizers();
  base = Object.fromEntries(
    Object.entries(files).map(([name, file]) => [name, JSON.parse(readFileSync(file, 'utf8')) as Json]),
  ) as Record<TokenizerName, Json>;
  dir = mkdtempSync(path.join(tmpdir(), 'ts-tok-variants-'));
});

function variant(from: TokenizerName, changes: Json): string {
  const file = path.join(dir, `${from}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ ...base[from], ...changes }));
  return file;
}

async function expectParity(file: string, only: ParityInput[] = inputs): Promise<void> {
  for (const [addSpecialTokens, skipSpecialTokens] of [
    [true, false],
    [false, true],
  ] as const) {
    const m = await checkParity(binary, file, only, { addSpecialTokens, skipSpecialTokens });
    expect(m, describeMismatches(m)).toEqual([]);
  }
}

const bertWordPiece = (): Json => base['bert-base-uncased'].model as Json;

describe('normalizers', () => {
  for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD']) {
    it(`${form} then Lowercase`, async () => {
      await expectParity(
        variant('bert-base-uncased', {
          normalizer: { type: 'Sequence', normalizers: [{ type: form }, { type: 'Lowercase' }] },
        }),
      );
    });
  }
  it('NFKD, StripAccents, Lowercase, Strip, Replace, Prepend', async () => {
    await expectParity(
      variant('bert-base-uncased', {
        normalizer: {
          type: 'Sequence',
          normalizers: [
            { type: 'NFKD' },
            { type: 'StripAccents' },
            { type: 'Lowercase' },
            { type: 'Strip', strip_left: true, strip_right: true },
            { type: 'Replace', pattern: { String: 'hello' }, content: 'bye' },
            { type: 'Prepend', prepend: 'x' },
          ],
        },
      }),
    );
  });
  it('BertNormalizer without lowercasing keeps accents unless asked', async () => {
    await expectParity(
      variant('bert-base-uncased', {
        normalizer: {
          type: 'BertNormalizer',
          clean_text: true,
          handle_chinese_chars: false,
          strip_accents: true,
          lowercase: false,
        },
      }),
    );
  });
});

describe('pre-tokenizers', () => {
  it('WhitespaceSplit, Punctuation and individual Digits in a Sequence', async () => {
    await expectParity(
      variant('bert-base-uncased', {
        pre_tokenizer: {
          type: 'Sequence',
          pretokenizers: [
            { type: 'WhitespaceSplit' },
            { type: 'Punctuation', behavior: 'Isolated' },
            { type: 'Digits', individual_digits: true },
          ],
        },
      }),
    );
  });
  for (const behavior of ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous']) {
    it(`Split on a string, ${behavior}, then ByteLevel without its regex`, async () => {
      await expectParity(
        variant('gpt2', {
          pre_tokenizer: {
            type: 'Sequence',
            pretokenizers: [
              { type: 'Split', pattern: { String: ' ' }, behavior, invert: false },
              { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
            ],
          },
        }),
      );
    });
    it(`Punctuation ${behavior} and contiguous Digits`, async () => {
      await expectParity(
        variant('bert-base-uncased', {
          pre_tokenizer: {
            type: 'Sequence',
            pretokenizers: [
              { type: 'WhitespaceSplit' },
              { type: 'Punctuation', behavior },
              { type: 'Digits', individual_digits: false },
            ],
          },
        }),
      );
    });
  }
  // A regex with an empty lookahead match, runs and bounded repeats: every behavior, both ways.
  for (const behavior of ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous']) {
    for (const invert of [false, true]) {
      it(`Split on a regex (Oniguruma), ${behavior}${invert ? ', inverted' : ''}`, async () => {
        await expectParity(
          variant('llama-3.1', {
            pre_tokenizer: {
              type: 'Sequence',
              pretokenizers: [
                {
                  type: 'Split',
                  pattern: { Regex: "(?=\\p{Lu})|\\s+|\\p{N}{1,2}|(?i:'s|n't)" },
                  behavior,
                  invert,
                },
                { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
              ],
            },
          }),
        );
      });
    }
  }
  it('Split on a regex that matches the empty string everywhere, and on the empty string', async () => {
    for (const pattern of [{ Regex: 'x*' }, { String: '' }]) {
      await expectParity(
        variant('llama-3.1', {
          pre_tokenizer: {
            type: 'Sequence',
            pretokenizers: [
              { type: 'Split', pattern, behavior: 'MergedWithNext', invert: false },
              { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
            ],
          },
        }),
      );
    }
  });
  it('Digits and Punctuation before a byte-level BPE, with ByteLevel use_regex false', async () => {
    await expectParity(
      variant('qwen3', {
        pre_tokenizer: {
          type: 'Sequence',
          pretokenizers: [
            { type: 'Digits', individual_digits: true },
            { type: 'Punctuation', behavior: 'Contiguous' },
            { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: false },
          ],
        },
      }),
    );
  });
  it('Whitespace (Rust regex \\w+|[^\\w\\s]+, kept) and CharDelimiterSplit', async () => {
    await expectParity(variant('bert-base-uncased', { pre_tokenizer: { type: 'Whitespace' } }), [
      ...inputs,
      { text: 'Ⅻ ⅻx a\u200cb a\u200db x_y ٣٤ 𝔾𝕠 ½ ²' },
    ]);
    await expectParity(
      variant('bert-base-uncased', { pre_tokenizer: { type: 'CharDelimiterSplit', delimiter: 'o' } }),
    );
  });
  it('FixedLength (3, and its default 5) before a byte-level BPE', async () => {
    const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
    for (const fixed of [{ type: 'FixedLength', length: 3 }, { type: 'FixedLength' }])
      await expectParity(
        variant('gpt2', { pre_tokenizer: { type: 'Sequence', pretokenizers: [fixed, byteLevel] } }),
      );
  });
  it('ByteLevel with add_prefix_space', async () => {
    await expectParity(
      variant('gpt2', {
        pre_tokenizer: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      }),
    );
  });
  for (const [scheme, split] of [
    ['always', true],
    ['first', false],
    ['first', true],
    ['never', true],
  ] as const) {
    it(`Metaspace (prepend_scheme ${scheme}, split ${split}) with the Metaspace decoder`, async () => {
      await expectParity(
        variant('llama-2', {
          normalizer: null,
          pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: scheme, split },
          decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: scheme, split },
        }),
      );
    });
  }
});

/**
 * A BPE over BERT's vocabulary whose merges rebuild every token from the one a character shorter:
 * with the prefix, "##" marks word-inner pieces as in BERT; with the suffix, "</w>" marks a word's
 * last piece (every token in an inner and a final form). HF decides what either encodes to.
 */
function affixedBpe(kind: 'prefix' | 'suffix'): Json {
  const bertVocab = bertWordPiece().vocab as Record<string, number>;
  const ordered = Object.entries(bertVocab)
    .sort((a, b) => a[1] - b[1])
    .map(([t]) => t);
  const vocab: Record<string, number> = {};
  let size = 0; // counted, not Object.keys(vocab).length per token (quadratic: minutes in CI)
  const add = (t: string): void => {
    if (!(t in vocab)) vocab[t] = size++;
  };
  const merges: string[] = [];
  if (kind === 'prefix') {
    ordered.forEach(add);
    for (const tok of ordered) {
      const inner = tok.startsWith('##');
      const chars = [...(inner ? tok.slice(2) : tok)];
      if (chars.length < 2) continue;
      const head = (inner ? '##' : '') + chars.slice(0, -1).join('');
      const tail = `##${chars[chars.length - 1]!}`;
      if (head in vocab && tail in vocab) merges.push(`${head} ${tail}`);
    }
    return {
      type: 'BPE',
      dropout: null,
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    };
  }
  const bodies = ordered.map((t) => (t.startsWith('##') ? t.slice(2) : t)).filter((t) => t.length > 0);
  for (const body of bodies) for (const c of body) [c, `${c}</w>`].forEach(add);
  for (const body of bodies) [body, `${body}</w>`].forEach(add);
  for (const body of bodies) {
    const chars = [...body];
    if (chars.length < 2) continue;
    const head = chars.slice(0, -1).join('');
    const last = chars[chars.length - 1]!;
    if (head in vocab) merges.push(`${head} ${last}`, `${head} ${last}</w>`);
  }
  return {
    type: 'BPE',
    dropout: null,
    unk_token: '[UNK]',
    continuing_subword_prefix: null,
    end_of_word_suffix: '</w>',
    fuse_unk: false,
    byte_fallback: false,
    ignore_merges: false,
    vocab: { ...vocab, '[UNK]': size },
    merges,
  };
}

describe('models', () => {
  it('WordLevel: one id per piece, the unknown token for the rest', async () => {
    const bert = base['bert-base-uncased'].model as Json;
    await expectParity(
      variant('bert-base-uncased', { model: { type: 'WordLevel', vocab: bert.vocab, unk_token: '[UNK]' } }),
    );
  });
  it('BPE with a continuing_subword_prefix ("##", BERT-style) and with an end_of_word_suffix ("</w>")', async () => {
    await expectParity(variant('bert-base-uncased', { model: affixedBpe('prefix') }));
    await expectParity(variant('bert-base-uncased', { model: affixedBpe('suffix') }));
  });
  it('BPE with ignore_merges off on a vocabulary built to have it on (Llama-3.1)', async () => {
    await expectParity(
      variant('llama-3.1', { model: { ...(base['llama-3.1'].model as Json), ignore_merges: false } }),
    );
  });
});

describe('post-processors, truncation and padding', () => {
  it('BertProcessing', async () => {
    await expectParity(
      variant('bert-base-uncased', {
        post_processor: { type: 'BertProcessing', sep: ['[SEP]', 102], cls: ['[CLS]', 101] },
      }),
    );
  });
  it('RobertaProcessing in a Sequence with ByteLevel', async () => {
    await expectParity(
      variant('gpt2', {
        post_processor: {
          type: 'Sequence',
          processors: [
            { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
            {
              type: 'RobertaProcessing',
              sep: ['<|endoftext|>', 50256],
              cls: ['<|endoftext|>', 50256],
              trim_offsets: true,
              add_prefix_space: false,
            },
          ],
        },
      }),
    );
  });
  for (const direction of ['Right', 'Left']) {
    it(`truncation to 8 (${direction}) and fixed padding to 12 (${direction})`, async () => {
      await expectParity(
        variant('bert-base-uncased', {
          truncation: { direction, max_length: 8, strategy: 'LongestFirst', stride: 0 },
          padding: {
            strategy: { Fixed: 12 },
            direction,
            pad_to_multiple_of: null,
            pad_id: 0,
            pad_type_id: 0,
            pad_token: '[PAD]',
          },
        }),
      );
    });
  }
  it('padding to a multiple of 5 with the batch-longest strategy', async () => {
    await expectParity(
      variant('llama-2', {
        padding: {
          strategy: 'BatchLongest',
          direction: 'Right',
          pad_to_multiple_of: 5,
          pad_id: 2,
          pad_type_id: 0,
          pad_token: '</s>',
        },
      }),
    );
  });
});

describe('decoders', () => {
  it('no decoder joins tokens with spaces', async () => {
    await expectParity(variant('bert-base-uncased', { decoder: null }));
  });
  it('Fuse before Replace and a Strip with a stop', async () => {
    await expectParity(
      variant('llama-2', {
        decoder: {
          type: 'Sequence',
          decoders: [
            { type: 'ByteFallback' },
            { type: 'Fuse' },
            { type: 'Replace', pattern: { String: '▁▁' }, content: '_' },
            { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
            { type: 'Strip', content: ' ', start: 2, stop: 2 },
          ],
        },
      }),
      // HF's Strip decoder panics on an empty string (it indexes before the start), so no empty input here.
      inputs.filter((i) => !('text' in i) || i.text.length > 0),
    );
  });
  it('CTC: repeats collapse, the pad token goes, the word delimiter becomes a space', async () => {
    await expectParity(
      variant('bert-base-uncased', {
        decoder: { type: 'CTC', pad_token: '[PAD]', word_delimiter_token: '##', cleanup: true },
      }),
    );
  });
  it('BPEDecoder: the suffix is a space except at the end', async () => {
    await expectParity(variant('bert-base-uncased', { decoder: { type: 'BPEDecoder', suffix: '##' } }));
  });
  it('Replace with a regex, token by token, before ByteFallback and Fuse', async () => {
    await expectParity(
      variant('llama-2', {
        decoder: {
          type: 'Sequence',
          decoders: [
            { type: 'Replace', pattern: { Regex: '▁+' }, content: ' ' },
            { type: 'Replace', pattern: { Regex: '(?=e)' }, content: '·' },
            { type: 'ByteFallback' },
            { type: 'Fuse' },
            { type: 'Strip', content: ' ', start: 1, stop: 0 },
          ],
        },
      }),
      inputs.filter((i) => !('text' in i) || i.text.length > 0),
    );
  });
  it('WordPiece without cleanup', async () => {
    await expectParity(
      variant('bert-base-uncased', { decoder: { type: 'WordPiece', prefix: '##', cleanup: false } }),
    );
  });
});

describe('added tokens', () => {
  it('lstrip, rstrip, single_word and normalized options', async () => {
    const gpt2 = base.gpt2;
    await expectParity(
      variant('gpt2', {
        normalizer: { type: 'Lowercase' },
        added_tokens: [
          ...(gpt2.added_tokens as Json[]),
          {
            id: 50257,
            content: '<mask>',
            single_word: false,
            lstrip: true,
            rstrip: false,
            normalized: false,
            special: true,
          },
          {
            id: 50258,
            content: 'hello',
            single_word: true,
            lstrip: false,
            rstrip: false,
            normalized: false,
            special: false,
          },
          {
            id: 50259,
            content: 'WORLD',
            single_word: false,
            lstrip: false,
            rstrip: true,
            normalized: true,
            special: false,
          },
          {
            id: 50260,
            content: '  ',
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: true,
            special: true,
          },
        ],
      }),
    );
  });
  it('BERT special tokens inside text', async () => {
    expect(bertWordPiece().type).toBe('WordPiece');
    await expectParity(variant('bert-base-uncased', {}));
  });
});
