// Compares the native tokenizer with Hugging Face's own library (npm `tokenizers`, Rust) on a list
// of inputs: encoded ids, decoded text, and streaming decode against full decode.
import { readFileSync } from 'node:fs';

import { Tokenizer } from 'tokenizers';

import { answerDigest, planCheck } from './hf-references.js';
import { type BatchInput, encodeIds, runBatch } from './native.js';

/** One corpus entry: text, or raw bytes (for invalid UTF-8) given as hex. */
export type ParityInput = { text: string } | { hex: string };

export interface Mismatch {
  index: number;
  input: string;
  what: 'ids' | 'text' | 'stream' | 'flat' | 'error';
  expected: unknown;
  actual: unknown;
}

export interface ParityOptions {
  addSpecialTokens: boolean;
  skipSpecialTokens: boolean;
  /** Runs a `binary` built for another CPU (qemu-user: emulationPrefix). */
  launcher?: string[];
  /**
   * Also check the batch call (EncodeFlat, through `ts-tokenize --jsonl`) against one Encode per
   * input: the corpus checks ask for it; the narrower ones leave it to them (it is one more process).
   */
  flat?: boolean;
}

/** The string HF sees for an input: bytes are read as UTF-8 with U+FFFD for invalid sequences. */
export function inputText(input: ParityInput): string {
  return 'text' in input ? input.text : new TextDecoder('utf-8').decode(Buffer.from(input.hex, 'hex'));
}

export async function checkParity(
  binary: string,
  tokenizerFile: string,
  inputs: ParityInput[],
  opts: ParityOptions,
): Promise<Mismatch[]> {
  const batch: BatchInput[] = inputs.map((i) => ({
    ...i,
    add_special_tokens: opts.addSpecialTokens,
    skip_special_tokens: opts.skipSpecialTokens,
  }));
  const native = await runBatch(binary, tokenizerFile, batch, opts.launcher);
  const texts = inputs.map(inputText);
  const options = { addSpecialTokens: opts.addSpecialTokens, skipSpecialTokens: opts.skipSpecialTokens };
  const { checked, keep } = planCheck('parity', tokenizerFile, inputs, options, () =>
    native.every((n) => n.error === undefined)
      ? answerDigest(native.map((n) => ({ ids: n.ids ?? [], text: n.text ?? '' })))
      : undefined,
  );
  const reference = Tokenizer.fromFile(tokenizerFile);
  const expectedIds = await referenceIds(
    reference,
    tokenizerFile,
    checked.map((i) => texts[i]!),
    opts.addSpecialTokens,
  );
  const decoded = await reference.decodeBatch(expectedIds, opts.skipSpecialTokens);
  keep(() => answerDigest(expectedIds.map((ids, i) => ({ ids, text: decoded[i]! }))));
  const mismatches: Mismatch[] = [];
  for (const [k, index] of checked.entries()) {
    const got = native[index]!;
    const shown = shownInput(texts[index]!);
    const ids = expectedIds[k]!;
    if (got.error !== undefined) {
      mismatches.push({ index, input: shown, what: 'error', expected: ids, actual: got.error });
      continue;
    }
    if (!sameIds(ids, got.ids ?? [])) {
      mismatches.push({ index, input: shown, what: 'ids', expected: ids, actual: got.ids });
      continue;
    }
    if (decoded[k] !== got.text)
      mismatches.push({ index, input: shown, what: 'text', expected: decoded[k], actual: got.text });
  }
  // Streaming decode against the full decode, and the batch call (EncodeFlat, through --jsonl)
  // against one Encode per text, need no HF: every input, every run.
  const flat = opts.flat
    ? await encodeIds(binary, tokenizerFile, texts, opts.addSpecialTokens, opts.launcher)
    : undefined;
  for (const [index, got] of native.entries()) {
    if (got.error !== undefined) continue;
    const input = shownInput(texts[index]!);
    if (got.stream !== got.text)
      mismatches.push({ index, input, what: 'stream', expected: got.text, actual: got.stream });
    if (flat && !sameIds(got.ids ?? [], flat[index]!))
      mismatches.push({ index, input, what: 'flat', expected: got.ids, actual: flat[index] });
  }
  return mismatches;
}

/**
 * HF's ids for each text. One encodeBatch call is four times faster than a call per text (the
 * binding's per-call cost, not the tokenizer), and gives the same ids unless the file pads to the
 * batch's longest: then each text is encoded alone, as the native side does.
 */
async function referenceIds(
  reference: Tokenizer,
  tokenizerFile: string,
  texts: string[],
  addSpecialTokens: boolean,
): Promise<number[][]> {
  const { padding } = JSON.parse(readFileSync(tokenizerFile, 'utf8')) as { padding?: unknown };
  if (padding != null) {
    const ids: number[][] = [];
    for (const text of texts) ids.push((await reference.encode(text, null, { addSpecialTokens })).getIds());
    return ids;
  }
  return (await reference.encodeBatch(texts, { addSpecialTokens })).map((e) => e.getIds());
}

/** An input as a mismatch shows it: its first 200 characters. */
function shownInput(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The same ids in the same order. */
export function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A readable summary of the first mismatches, for test failure messages and the CLI. */
export function describeMismatches(mismatches: Mismatch[], limit = 5): string {
  return mismatches
    .slice(0, limit)
    .map(
      (m) =>
        `#${m.index} ${m.what} for ${JSON.stringify(m.input)}\n  expected ${JSON.stringify(m.expected)}\n  actual   ${JSON.stringify(m.actual)}`,
    )
    .join('\n');
}
