// A Unigram tokenizer.json for the parity tests: no registry package ships one (XLM-R, T5, BGE-M3 and
// multilingual E5 live on the model hub), so Hugging Face's own Unigram trainer (npm `tokenizers`)
// trains one on part of the project corpus, and it is dressed in XLM-RoBERTa's pipeline: <s> <pad>
// </s> <unk> first and <mask> last, NFKC then runs of spaces collapsed by a regex Replace (XLM-R has
// SentencePiece's precompiled NFKC there), Metaspace pre-tokenizer and decoder, "<s> $A </s>".
// Trained once and kept in .cache/tokenizers-trained/ (about half a minute).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { metaspacePreTokenizer, nfkcNormalizer, Tokenizer, Unigram } from 'tokenizers';

import { loadCorpus } from '../../scripts/build-corpus.js';
import { repoRoot } from './native.js';

type Json = Record<string, unknown>;

const SPECIALS = ['<s>', '<pad>', '</s>', '<unk>'];

function special(id: number, content: string): Json {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** XLM-RoBERTa's pipeline around a trained vocabulary of [piece, score] pairs. */
function xlmrPipeline(trained: [string, number][]): Json {
  const reserved = new Set([...SPECIALS, '<mask>']);
  const vocab: [string, number][] = [
    ...SPECIALS.map((s): [string, number] => [s, 0]),
    ...trained.filter(([piece]) => !reserved.has(piece)),
    ['<mask>', 0],
  ];
  const mask = vocab.length - 1;
  const template = (ids: Record<string, number>): Json => ({
    type: 'TemplateProcessing',
    single: [
      { SpecialToken: { id: '<s>', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '</s>', type_id: 0 } },
    ],
    pair: [
      { SpecialToken: { id: '<s>', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '</s>', type_id: 0 } },
      { SpecialToken: { id: '</s>', type_id: 0 } },
      { Sequence: { id: 'B', type_id: 0 } },
      { SpecialToken: { id: '</s>', type_id: 0 } },
    ],
    special_tokens: Object.fromEntries(
      Object.entries(ids).map(([t, id]) => [t, { id: t, ids: [id], tokens: [t] }]),
    ),
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [...SPECIALS.map((s, i) => special(i, s)), { ...special(mask, '<mask>'), lstrip: true }],
    normalizer: {
      type: 'Sequence',
      normalizers: [{ type: 'NFKC' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }],
    },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: template({ '<s>': 0, '</s>': 2 }),
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 3, vocab, byte_fallback: false },
  };
}

/** The trained Unigram tokenizer.json (trained on first use). */
export function trainedUnigramFile(): string {
  // Code and license prose: few enough distinct characters for the trainer's 8000 pieces, so the
  // other scripts of the corpus exercise the unknown token.
  const lines = loadCorpus()
    .filter((e) => 'text' in e && /^(code:|prose:licenses)/.test(e.source))
    .filter((_, i) => i % 3 === 0)
    .map((e) => ('text' in e ? e.text : ''));
  const text = lines.join('\n');
  const version = (
    JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/tokenizers/package.json'), 'utf8')) as Json
  ).version as string;
  const key = createHash('sha256').update(version).update(text).digest('hex').slice(0, 16);
  const dir = path.join(repoRoot, '.cache/tokenizers-trained');
  const file = path.join(dir, `unigram-xlmr-${key}.json`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const input = path.join(dir, `train-${process.pid}.txt`);
  writeFileSync(input, text);
  const trainer = new Tokenizer(Unigram.empty());
  trainer.setNormalizer(nfkcNormalizer());
  trainer.setPreTokenizer(metaspacePreTokenizer());
  trainer.train([input]);
  const raw = path.join(dir, `trained-${process.pid}.json`);
  trainer.save(raw);
  const trained = ((JSON.parse(readFileSync(raw, 'utf8')) as Json).model as Json).vocab as [string, number][];
  rmSync(input);
  rmSync(raw);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(xlmrPipeline(trained)));
  Tokenizer.fromFile(tmp); // HF must load what the tests compare against
  renameSync(tmp, file);
  return file;
}
