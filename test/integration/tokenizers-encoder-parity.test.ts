// Encoder pipelines match Hugging Face `tokenizers`: text pairs drawn from the project corpus, in
// batches, through tokenizer.json "truncation" (every strategy, both directions, a stride, a
// max_length below the special tokens) and "padding" (BatchLongest, Fixed, pad_to_multiple_of,
// left) objects, with and without special tokens: ids, type ids and attention masks are equal, and
// where HF refuses a batch the native library refuses it too. Post-processors: BERT's
// TemplateProcessing, BertProcessing, RobertaProcessing over GPT-2's ByteLevel BPE, Llama-3.1's
// Sequence(ByteLevel, TemplateProcessing), and none.
// Every 4th corpus string by default (a few minutes) (pairs of neighbours); ENCODER_PARITY_FULL=1 takes all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  checkEncoderParity,
  describeEncoderMismatches,
  type EncoderSettings,
  pairBatches,
  type PairRow,
  withEncoderSettings,
} from '../../bench/tokenizers/encoder-parity.js';
import { removeScratchTokenizers } from '../../bench/tokenizers/scratch.js';
import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { inputText } from '../../bench/tokenizers/parity.js';
import { assembleTokenizers, type TokenizerName } from '../../scripts/assemble-tokenizers.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

afterAll(removeScratchTokenizers);

const FULL = process.env.ENCODER_PARITY_FULL === '1';

const pad = (over: Partial<NonNullable<EncoderSettings['padding']>> = {}): EncoderSettings['padding'] => ({
  strategy: 'BatchLongest',
  direction: 'Right',
  pad_to_multiple_of: null,
  pad_id: 0,
  pad_type_id: 0,
  pad_token: '[PAD]',
  ...over,
});
const cut = (
  over: Partial<NonNullable<EncoderSettings['truncation']>> = {},
): EncoderSettings['truncation'] => ({
  max_length: 32,
  stride: 0,
  strategy: 'LongestFirst',
  direction: 'Right',
  ...over,
});

const SETTINGS: Record<string, EncoderSettings> = {
  'LongestFirst 32, BatchLongest': { truncation: cut(), padding: pad() },
  'LongestFirst 16 left, stride 3, padding left to a multiple of 8': {
    truncation: cut({ max_length: 16, direction: 'Left', stride: 3 }),
    padding: pad({ direction: 'Left', pad_to_multiple_of: 8, pad_id: 3, pad_type_id: 1 }),
  },
  'OnlyFirst 48, Fixed 64': {
    truncation: cut({ max_length: 48, strategy: 'OnlyFirst' }),
    padding: pad({ strategy: { Fixed: 64 } }),
  },
  'OnlySecond 40 left': {
    truncation: cut({ max_length: 40, strategy: 'OnlySecond', direction: 'Left' }),
    padding: pad(),
  },
  'max_length 2, below the special tokens': { truncation: cut({ max_length: 2 }), padding: pad() },
  'max_length 0': { truncation: cut({ max_length: 0 }), padding: null },
  'padding only, multiple of 16': { truncation: null, padding: pad({ pad_to_multiple_of: 16 }) },
};

/** Tokenizer file and post-processor override (undefined: its own) per case. */
const TOKENIZERS: Record<string, { name: TokenizerName; postProcessor?: unknown }> = {
  'BERT (TemplateProcessing)': { name: 'bert-base-uncased' },
  'BERT (BertProcessing)': {
    name: 'bert-base-uncased',
    postProcessor: { type: 'BertProcessing', sep: ['[SEP]', 102], cls: ['[CLS]', 101] },
  },
  'GPT-2 ByteLevel (RobertaProcessing)': {
    name: 'gpt2',
    postProcessor: {
      type: 'RobertaProcessing',
      sep: ['<|endoftext|>', 50256],
      cls: ['<|endoftext|>', 50256],
      trim_offsets: true,
      add_prefix_space: false,
    },
  },
  'Llama-3.1 (Sequence: ByteLevel, TemplateProcessing)': { name: 'llama-3.1' },
  'GPT-2 (no post-processor)': { name: 'gpt2', postProcessor: null },
};

let binary = '';
let files = {} as Record<TokenizerName, string>;
let batches: PairRow[][] = [];
// One row per batch, so a row HF refuses (a text too short to cut, OnlySecond without a pair)
// leaves the others compared.
let rows: PairRow[][] = [];

beforeAll(async () => {
  binary = await ensureTsTokenize();
  files = await assembleTokenizers();
  const texts = loadCorpus()
    .filter((_, i) => FULL || i % 4 === 0)
    .map(inputText);
  batches = pairBatches(texts, 4);
  rows = pairBatches(texts, 1);
  expect(batches.length).toBeGreaterThan(FULL ? 3000 : 800);
});

describe('encoder pipelines (pairs, truncation, padding) match HF tokenizers', () => {
  for (const [tokName, tok] of Object.entries(TOKENIZERS)) {
    for (const [settingName, settings] of Object.entries(SETTINGS)) {
      for (const addSpecialTokens of [true, false]) {
        it(`${tokName}, ${settingName}, ${addSpecialTokens ? 'with' : 'without'} special tokens`, async () => {
          const file = withEncoderSettings(files[tok.name], settings, tok.postProcessor);
          const strict = settings.truncation !== null && settings.truncation.strategy !== 'LongestFirst';
          const input = strict ? rows : batches;
          const { mismatches, refused } = await checkEncoderParity(
            binary,
            file,
            settings,
            input,
            addSpecialTokens,
          );
          expect(mismatches, describeEncoderMismatches(mismatches)).toEqual([]);
          // Most batches are encoded, not refused by both (OnlyFirst/OnlySecond refuse a text too short to cut).
          expect(refused).toBeLessThan(input.length / 2);
        });
      }
    }
  }
});
