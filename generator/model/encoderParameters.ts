/**
 * A tokenize step's truncation and padding parameters, once: what a pipeline step's `parameters`
 * may set over tokenizer.json's own `truncation` / `padding` (as sentence-transformers users set
 * `max_seq_length`). Validation (`pipeline/checks/encoderParameters.ts`), the repository writer
 * (the derived `default_max_length`), the C++ parser (`backends/triton/src/encoder_options.cc`,
 * checked against this table by `test/unit/encoder-parameters.test.ts`) and docs/TOKENIZERS.md
 * (same test) all follow these rows. Names are HF's tokenizer call arguments.
 */

export type EncoderParameterGroup = 'truncation' | 'padding';

export interface EncoderParameter {
  readonly name: string;
  readonly group: EncoderParameterGroup;
  /** A whole number ≥ `min`, or one of `choices`. */
  readonly min?: number;
  readonly choices?: readonly string[];
  /** HF's field (tokenizer.json's `truncation` / `padding` object) it overrides. */
  readonly hf: string;
  /** The generator writes it; a pipeline may still set it. */
  readonly derived?: boolean;
  readonly doc: string;
}

export const ENCODER_PARAMETERS: readonly EncoderParameter[] = [
  {
    name: 'max_length',
    group: 'truncation',
    min: 1,
    hf: 'truncation.max_length',
    doc: 'tokens per row, special tokens included; longer rows are cut',
  },
  {
    name: 'truncation_strategy',
    group: 'truncation',
    choices: ['longest_first', 'only_first', 'only_second'],
    hf: 'truncation.strategy',
    doc: 'which text of a pair is cut: the longer one token by token, only the first, only the second',
  },
  {
    name: 'stride',
    group: 'truncation',
    min: 0,
    hf: 'truncation.stride',
    doc: 'overlap of the overflowing windows (not returned); must stay below the length a text is cut to',
  },
  {
    name: 'truncation_direction',
    group: 'truncation',
    choices: ['right', 'left'],
    hf: 'truncation.direction',
    doc: 'right: keep the start; left: keep the end',
  },
  {
    name: 'default_max_length',
    group: 'truncation',
    min: 1,
    hf: '(none)',
    derived: true,
    doc:
      "an encoder step's cut when tokenizer.json has no truncation and the step sets no max_length: " +
      "the model step's `max_position_embeddings` parameter, else 512 (LongestFirst)",
  },
  {
    name: 'padding_strategy',
    group: 'padding',
    choices: ['batch_longest', 'fixed'],
    hf: 'padding.strategy',
    doc: 'pad each row to the longest of the batch, or to padding_length',
  },
  {
    name: 'padding_length',
    group: 'padding',
    min: 1,
    hf: 'padding.strategy.Fixed',
    doc: 'the length of every row with padding_strategy fixed',
  },
  {
    name: 'pad_to_multiple_of',
    group: 'padding',
    min: 0,
    hf: 'padding.pad_to_multiple_of',
    doc: 'round the padded length up to a multiple of this (0: no rounding)',
  },
  {
    name: 'padding_direction',
    group: 'padding',
    choices: ['right', 'left'],
    hf: 'padding.direction',
    doc: 'where the pad tokens go',
  },
];

/** The cut an encoder model gets when nothing else says: BERT's and sentence-transformers' 512. */
export const DEFAULT_ENCODER_MAX_LENGTH = 512;

/** The model step parameter the derived cut comes from (HF config.json's name). */
export const MAX_POSITION_PARAMETER = 'max_position_embeddings';

export function encoderParameter(name: string): EncoderParameter | undefined {
  return ENCODER_PARAMETERS.find((p) => p.name === name);
}

/**
 * The special tokens HF's post-processor adds to a single text and to a pair, read from a
 * tokenizer.json; undefined when it adds none or its kind is unknown here.
 */
export function specialTokenCounts(tokenizerJson: unknown): { single: number; pair: number } | undefined {
  const post = (tokenizerJson as { post_processor?: PostProcessor } | null)?.post_processor;
  return post ? countsOf(post) : undefined;
}

interface PostProcessor {
  type?: string;
  single?: { SpecialToken?: unknown }[];
  pair?: { SpecialToken?: unknown }[];
  processors?: PostProcessor[];
}

function countsOf(post: PostProcessor): { single: number; pair: number } | undefined {
  switch (post.type) {
    case 'BertProcessing':
      return { single: 2, pair: 3 };
    case 'RobertaProcessing':
      return { single: 2, pair: 4 };
    case 'TemplateProcessing': {
      const specials = (pieces?: { SpecialToken?: unknown }[]) =>
        (pieces ?? []).filter((p) => p.SpecialToken).length;
      return { single: specials(post.single), pair: specials(post.pair) };
    }
    case 'Sequence':
      return (post.processors ?? []).map(countsOf).find((c) => c !== undefined);
    default:
      return undefined;
  }
}
