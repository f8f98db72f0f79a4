/** docs/PIPELINE.md stays the reference: it lists every diagnostic code and every preset. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, listPresets } from '../../generator/index.js';

const doc = readFileSync(resolve(__dirname, '../../docs/PIPELINE.md'), 'utf8');

describe('docs/PIPELINE.md', () => {
  it.each(Object.keys(DIAGNOSTIC_CODES))('documents %s', (code) => {
    expect(doc).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  });

  it.each(listPresets().map((p) => p.id))('documents preset %s', (id) => {
    expect(doc).toContain(`| \`${id}\` |`);
  });
});
