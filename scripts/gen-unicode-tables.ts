/**
 * Writes the tokenizer library's generated Unicode tables (backends/tokenizers/src/*.inc) from
 * pinned npm Unicode data; one module per table under scripts/unicode/ says what it holds and why
 * that version:
 * - unicode_tables.inc (unicode/unicode-tables.ts): Unicode 14.0 categories, combining classes,
 *   lowercase, NFD/NFKD and compositions, with BERT's Unicode 8.0 classes.
 * - grapheme_tables.inc (unicode/grapheme-tables.ts): Unicode 17.0 grapheme cluster properties.
 * - script_tables.inc (unicode/script-tables.ts): Unicode 9.0 scripts (HF's UnicodeScripts).
 * - hf_unicode_versions.inc (unicode/hf-unicode-versions.ts): where HF's own Unicode versions
 *   differ from unicode_tables.inc's 14.0.
 * Run: node --import tsx scripts/gen-unicode-tables.ts [--check]
 * --check writes nothing and exits 1 when a committed file differs; test/unit/unicode-tables.test.ts
 * checks the same in `npm test`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { renderGraphemeTables } from './unicode/grapheme-tables.js';
import { renderHfUnicodeVersions } from './unicode/hf-unicode-versions.js';
import { renderScriptTables } from './unicode/script-tables.js';
import { root, srcDir } from './unicode/ucd.js';
import { renderUnicodeTables } from './unicode/unicode-tables.js';

/** Each generated file's path and the text this script writes into it. */
export async function unicodeTables(): Promise<Array<[string, string]>> {
  return [
    [path.join(srcDir, 'unicode_tables.inc'), await renderUnicodeTables()],
    [path.join(srcDir, 'grapheme_tables.inc'), await renderGraphemeTables()],
    [path.join(srcDir, 'script_tables.inc'), await renderScriptTables()],
    [path.join(srcDir, 'hf_unicode_versions.inc'), await renderHfUnicodeVersions()],
  ];
}

async function main(): Promise<void> {
  const outputs = await unicodeTables();
  const check = process.argv.includes('--check');
  let stale = false;
  for (const [file, text] of outputs) {
    const name = path.relative(root, file);
    if (!check) {
      writeFileSync(file, text);
      console.log(`wrote ${name}`);
    } else if (!existsSync(file) || readFileSync(file, 'utf8') !== text) {
      console.error(`${name} is stale: run node --import tsx scripts/gen-unicode-tables.ts`);
      stale = true;
    } else {
      console.log(`${name} is current`);
    }
  }
  if (stale) process.exit(1);
}

if (require.main === module) void main();
