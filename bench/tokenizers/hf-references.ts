// Recorded answers of Hugging Face `tokenizers` (the oracle of every exactness check), so that a
// check over a whole corpus or every code point does not pay for HF's Node binding (about 100 µs a
// text, most of a check's time) on every run.
//
// A record is one SHA-256 of HF's whole answer (ids, and decoded text where checked) under a key
// naming everything that answer depends on: the `tokenizers` package version, the tokenizer
// file's bytes, the inputs, the options. A run hashes the native answers the same way and compares;
// HF still runs live on every 8th input, every run. Any difference, a missing record (a new
// corpus, tokenizer or HF version) or TS_HF_REFERENCES=live runs HF on everything and lists the
// mismatches: a record only ever shortens a passing check. TS_HF_REFERENCES=record runs HF on
// everything and writes the records of the checks that agree (`npm run references:hf`).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const RECORDS = path.join(ROOT, 'test/integration/hf-references.json');
const HF_VERSION = (
  JSON.parse(readFileSync(path.join(ROOT, 'node_modules/tokenizers/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** Every 8th input is checked against HF live even when a record matches. */
const LIVE_SAMPLE_EVERY = 8;

type ReferenceMode = 'use' | 'live' | 'record';

function referenceMode(): ReferenceMode {
  const mode = process.env.TS_HF_REFERENCES ?? 'use';
  if (mode !== 'use' && mode !== 'live' && mode !== 'record') {
    throw new Error(`TS_HF_REFERENCES=${mode}: expected use (the default), live or record`);
  }
  return mode;
}

/** The key of one check: what HF's answer depends on. */
function referenceKey(check: string, tokenizerFile: string, inputs: unknown[], options: object): string {
  const hash = createHash('sha256');
  hash.update(`${check}\0tokenizers@${HF_VERSION}\0${JSON.stringify(options)}\0`);
  hash.update(readFileSync(tokenizerFile));
  hash.update('\0');
  for (const input of inputs)
    hash.update(`${typeof input === 'string' ? input : JSON.stringify(input)}\u0001`);
  return hash.digest('hex');
}

/** One digest of many answers, each already a string, in order. */
export function stringsDigest(answers: Iterable<string>): string {
  const hash = createHash('sha256');
  for (const a of answers) hash.update(`${a}\u0001`);
  return hash.digest('hex');
}

/** One answer per input, hashed in order: ids, and text when the check compares text. */
export function answerDigest(answers: { ids: readonly number[]; text?: string }[]): string {
  return stringsDigest(answers.map((a) => `${a.ids.join(',')}\0${a.text ?? ''}`));
}

function readRecords(): Record<string, string> {
  return existsSync(RECORDS) ? (JSON.parse(readFileSync(RECORDS, 'utf8')) as Record<string, string>) : {};
}

/** The recorded digest of HF's answer for `key`, in the default mode. */
function recordedDigest(key: string): string | undefined {
  if (referenceMode() !== 'use') return undefined;
  const digest = readRecords()[key];
  // Said, so that a slow run says why: `npm run references:hf` records it.
  if (digest === undefined)
    console.warn(`no recorded HF answer for check ${key.slice(0, 12)}: HF runs on every input`);
  return digest;
}

/** In record mode, keeps HF's digest for `key` (the file stays sorted, one key a line). */
function keepRecord(key: string, digest: string): void {
  if (referenceMode() !== 'record') return;
  const records = { ...readRecords(), [key]: digest };
  const sorted = Object.fromEntries(Object.entries(records).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(RECORDS, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** How one check asks HF: on which inputs, and what to record afterwards. */
export interface ReferencePlan {
  /** The native answers hash to HF's recorded answer. */
  matchesRecord: boolean;
  /** The input indices HF answers live: every 8th where the record matched, else all. */
  checked: number[];
  /** After HF answered every input: keeps the digest of that answer (in record mode). */
  keep(hfDigest: () => string): void;
}

/**
 * The plan of one check. `nativeDigest` hashes the native answers as HF's are hashed, or returns
 * undefined when they cannot equal HF's (a native error).
 */
export function planCheck(
  check: string,
  tokenizerFile: string,
  inputs: unknown[],
  options: object,
  nativeDigest: () => string | undefined,
): ReferencePlan {
  const key = referenceKey(check, tokenizerFile, inputs, options);
  const recorded = recordedDigest(key);
  const matchesRecord = recorded !== undefined && nativeDigest() === recorded;
  const checked: number[] = [];
  for (let i = 0; i < inputs.length; i += matchesRecord ? LIVE_SAMPLE_EVERY : 1) checked.push(i);
  return {
    matchesRecord,
    checked,
    keep: (hfDigest) => {
      if (!matchesRecord) keepRecord(key, hfDigest());
    },
  };
}
