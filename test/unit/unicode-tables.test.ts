// The tokenizer library's generated Unicode tables (grapheme cluster properties, HF's script table)
// are what scripts/gen-unicode-tables.ts makes from the pinned npm @unicode packages.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { unicodeTables } from '../../scripts/gen-unicode-tables.js';

describe('generated Unicode tables', () => {
  it('are current (regenerate with node --import tsx scripts/gen-unicode-tables.ts)', async () => {
    const tables = await unicodeTables();
    expect(tables.length).toBe(2);
    for (const [file, text] of tables) expect(readFileSync(file, 'utf8'), path.basename(file)).toBe(text);
  }, 60_000);
});
