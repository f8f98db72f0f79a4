/**
 * GPT-2-style BPE files — `vocab.json` (token → id) and `merges.txt` (one merge per line after a
 * `#version` header) as FasterTransformer ships them (`gpt2-vocab.json`, `gpt2-merges.txt`) and as
 * Hugging Face's slow GPT-2 tokenizer reads them — turned into the equivalent `tokenizer.json`,
 * the one Hugging Face's GPT2TokenizerFast conversion writes: byte-level BPE with GPT-2's
 * pre-tokenizer, no prefix space, `<|endoftext|>` as the special token when the vocabulary has it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export class VocabMergesError extends Error {}

/** The vocab/merges pair in `dir`, if any: FasterTransformer's names first, then Hugging Face's. */
export function findVocabMerges(dir: string): { vocab: string; merges: string } | undefined {
  for (const prefix of ['gpt2-', '']) {
    const vocab = join(dir, `${prefix}vocab.json`);
    const merges = join(dir, `${prefix}merges.txt`);
    if (existsSync(vocab) && existsSync(merges)) return { vocab, merges };
  }
  return undefined;
}

const SPECIAL = '<|endoftext|>';

export function tokenizerJsonFromVocabMerges(vocabText: string, mergesText: string): string {
  let vocab: Record<string, number>;
  try {
    vocab = JSON.parse(vocabText) as Record<string, number>;
  } catch (e) {
    throw new VocabMergesError(`vocab.json is not JSON: ${(e as Error).message}`);
  }
  if (!vocab || typeof vocab !== 'object' || Array.isArray(vocab))
    throw new VocabMergesError('vocab.json must map each token to its id');
  for (const [token, id] of Object.entries(vocab)) {
    if (!Number.isInteger(id) || id < 0)
      throw new VocabMergesError(`vocab.json: the id of ${JSON.stringify(token)} is not a whole number`);
  }
  const merges: string[] = [];
  mergesText.split(/\r?\n/).forEach((line, i) => {
    if (line === '' || (i === 0 && line.startsWith('#version'))) return;
    const parts = line.split(' ');
    if (parts.length !== 2)
      throw new VocabMergesError(`merges.txt line ${i + 1}: expected two tokens separated by one space`);
    if (!(parts[0]! in vocab) || !(parts[1]! in vocab) || !(parts.join('') in vocab))
      throw new VocabMergesError(`merges.txt line ${i + 1}: "${line}" merges tokens that vocab.json lacks`);
    merges.push(line);
  });
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens:
      SPECIAL in vocab
        ? [
            {
              id: vocab[SPECIAL],
              content: SPECIAL,
              single_word: false,
              lstrip: false,
              rstrip: false,
              normalized: false,
              special: true,
            },
          ]
        : [],
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: { ...byteLevel, add_prefix_space: true, trim_offsets: false },
    decoder: { ...byteLevel, add_prefix_space: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  };
  return JSON.stringify(tokenizer);
}

export function tokenizerJsonFromFiles(files: { vocab: string; merges: string }): string {
  return tokenizerJsonFromVocabMerges(readFileSync(files.vocab, 'utf8'), readFileSync(files.merges, 'utf8'));
}
