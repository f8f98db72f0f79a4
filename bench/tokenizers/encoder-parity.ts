// Encoder-pipeline parity with Hugging Face `tokenizers` (npm binding of the Rust library): text
// pairs and batches through a tokenizer.json given "truncation" and "padding" objects, compared by
// ids, type ids and attention masks (and by failing together where HF fails).
import { readFileSync } from 'node:fs';

import { Tokenizer } from 'tokenizers';

import { planCheck, stringsDigest } from './hf-references.js';
import { type BatchInput, runBatch } from './native.js';
import { writeScratchTokenizer } from './scratch.js';

/** tokenizer.json's `truncation` / `padding` objects, in HF's serialized form. */
export interface EncoderSettings {
  truncation: null | {
    max_length: number;
    stride: number;
    strategy: 'LongestFirst' | 'OnlyFirst' | 'OnlySecond';
    direction: 'Left' | 'Right';
  };
  padding: null | {
    strategy: 'BatchLongest' | { Fixed: number };
    direction: 'Left' | 'Right';
    pad_to_multiple_of: number | null;
    pad_id: number;
    pad_type_id: number;
    pad_token: string;
  };
}

/** One batch row: a text and, for a cross-encoder, a second text. */
export interface PairRow {
  text: string;
  pair?: string;
}

export interface EncoderMismatch {
  batch: number;
  rows: PairRow[];
  expected: unknown;
  actual: unknown;
}

interface Encoded {
  ids: number[];
  type_ids: number[];
  attention_mask: number[];
}

/**
 * Writes `base` with `settings` (and `postProcessor` when given: replaced, `null` removes it) to a
 * temporary file both libraries load, so each reads the settings from tokenizer.json itself.
 */
export function withEncoderSettings(
  base: string,
  settings: EncoderSettings,
  postProcessor?: unknown,
): string {
  const json = JSON.parse(readFileSync(base, 'utf8')) as Record<string, unknown>;
  json.truncation = settings.truncation;
  json.padding = settings.padding;
  if (postProcessor !== undefined) json.post_processor = postProcessor;
  return writeScratchTokenizer(json);
}

/** Batches of rows from a list of strings: rows of two texts, every fifth row single, some second texts empty. */
export function pairBatches(texts: string[], batchSize: number): PairRow[][] {
  const rows: PairRow[] = [];
  for (let i = 0; i + 1 < texts.length; i += 2) {
    const k = i / 2;
    if (k % 5 === 4) rows.push({ text: texts[i]! });
    else rows.push({ text: texts[i]!, pair: k % 7 === 3 ? '' : texts[i + 1]! });
  }
  const batches: PairRow[][] = [];
  for (let i = 0; i < rows.length; i += batchSize) batches.push(rows.slice(i, i + batchSize));
  return batches;
}

/**
 * HF's encode_batch for rows with pairs. The npm binding's encodeBatch takes single strings only,
 * so each row is HF's encode(text, pair) (truncation, post-processor, per-row padding) and the
 * batch padding is HF's own Encoding.pad to the length pad_encodings computes.
 */
async function reference(
  tokenizer: Tokenizer,
  settings: EncoderSettings,
  rows: PairRow[],
  addSpecialTokens: boolean,
): Promise<Encoded[] | string> {
  try {
    // All rows at once: the binding runs each call on its thread pool, so the calls overlap
    // instead of each waiting a round trip (four times faster than one after another).
    const encodings = await Promise.all(
      rows.map((r) => tokenizer.encode(r.text, r.pair ?? null, { addSpecialTokens })),
    );
    const p = settings.padding;
    if (p !== null && p.strategy === 'BatchLongest') {
      let length = Math.max(...encodings.map((e) => e.getLength()));
      const multiple = p.pad_to_multiple_of ?? 0;
      if (multiple > 0 && length % multiple > 0) length += multiple - (length % multiple);
      for (const e of encodings)
        e.pad(length, {
          direction: p.direction.toLowerCase(),
          padId: p.pad_id,
          padTypeId: p.pad_type_id,
          padToken: p.pad_token,
        });
    }
    return encodings.map((e) => ({
      ids: e.getIds(),
      type_ids: e.getTypeIds(),
      attention_mask: e.getAttentionMask(),
    }));
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

export interface EncoderParity {
  mismatches: EncoderMismatch[];
  /** Batches HF refused (the native library must refuse them too). */
  refused: number;
}

/** Every batch through HF and the native library; the batches where they differ. */
export async function checkEncoderParity(
  binary: string,
  file: string,
  settings: EncoderSettings,
  batches: PairRow[][],
  addSpecialTokens: boolean,
): Promise<EncoderParity> {
  const lines = batches.map(
    (rows) => ({ rows, add_special_tokens: addSpecialTokens }) as unknown as BatchInput,
  );
  const native = (await runBatch(binary, file, lines)).map((answer) => {
    const a = answer as { encodings?: Encoded[]; error?: string };
    // Same key order as the reference, so the two compare as JSON text.
    return {
      error: a.error,
      encodings: a.encodings?.map((e) => ({
        ids: e.ids,
        type_ids: e.type_ids,
        attention_mask: e.attention_mask,
      })),
    };
  });
  // A batch hashes as its encodings, or as refused (the two libraries word their errors apart).
  const hashed = (answer: Encoded[] | undefined) =>
    answer === undefined ? 'refused' : JSON.stringify(answer);
  const { matchesRecord, checked, keep } = planCheck('encoder', file, batches, { addSpecialTokens }, () =>
    stringsDigest(native.map((n) => hashed(n.encodings))),
  );
  const tokenizer = Tokenizer.fromFile(file);
  const references = await Promise.all(
    checked.map((b) => reference(tokenizer, settings, batches[b]!, addSpecialTokens)),
  );
  keep(() => stringsDigest(references.map((r) => hashed(typeof r === 'string' ? undefined : r))));
  const mismatches: EncoderMismatch[] = [];
  // Where the record matched, the native refusals are HF's, batch for batch.
  let refused = matchesRecord ? native.filter((n) => n.error !== undefined).length : 0;
  for (const [k, b] of checked.entries()) {
    const expected = references[k]!;
    const got = native[b]!;
    if (typeof expected === 'string' && !matchesRecord) refused++;
    const same =
      typeof expected === 'string'
        ? got.error !== undefined
        : got.encodings !== undefined && JSON.stringify(got.encodings) === JSON.stringify(expected);
    if (!same) mismatches.push({ batch: b, rows: batches[b]!, expected, actual: got.error ?? got.encodings });
  }
  return { mismatches, refused };
}

/** The first mismatches, readably (test failure messages). */
export function describeEncoderMismatches(mismatches: EncoderMismatch[], limit = 3): string {
  return mismatches
    .slice(0, limit)
    .map(
      (m) =>
        `batch ${m.batch} ${JSON.stringify(m.rows).slice(0, 300)}\n  expected ${JSON.stringify(m.expected).slice(0, 600)}\n  actual   ${JSON.stringify(m.actual).slice(0, 600)}`,
    )
    .join('\n');
}
