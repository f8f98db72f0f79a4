/** docs/PIPELINE.md stays the reference: it lists every diagnostic code and every preset. */
import { readFileSync, writeFileSync } from 'node:fs';
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

/**
 * The tensor table of every preset, rendered from the presets themselves: docs/PIPELINE.md holds
 * exactly this text between its markers (`UPDATE_DOCS=1 npx vitest run
 * test/unit/pipeline-docs.test.ts` rewrites it after a preset changes).
 */
function presetTensorTables(): string {
  const cell = (v: unknown) => (v === undefined || v === false ? '' : String(v));
  return listPresets()
    .map((p) => {
      const rows = (['inputs', 'outputs'] as const).flatMap((side) =>
        (p.template[side] ?? []).map(
          (t) =>
            `| ${side === 'inputs' ? 'in' : 'out'} | \`${t.name}\` | ${t.dataType} | [${t.dims.join(', ')}] | ${t.optional ? 'optional' : ''} | ${cell(t.role)} |`,
        ),
      );
      return [
        `#### \`${p.id}\``,
        '',
        p.title,
        '',
        '| | tensor | dtype | dims | | role |',
        '|---|---|---|---|---|---|',
        ...rows,
        '',
      ].join('\n');
    })
    .join('\n');
}

const BEGIN =
  '<!-- preset tensor tables: generated from generator/presets, checked by test/unit/pipeline-docs.test.ts -->\n';
const END = '<!-- end of preset tensor tables -->';

describe('docs/PIPELINE.md preset tensor tables', () => {
  it('list every port of every preset, as the presets define them', () => {
    const docPath = resolve(__dirname, '../../docs/PIPELINE.md');
    const text = readFileSync(docPath, 'utf8');
    const start = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    expect(start, 'docs/PIPELINE.md lacks the preset tensor table markers').toBeGreaterThan(0);
    const want = `${presetTensorTables()}\n`;
    if (process.env.UPDATE_DOCS === '1')
      writeFileSync(docPath, text.slice(0, start + BEGIN.length) + want + text.slice(end));
    else expect(text.slice(start + BEGIN.length, end)).toBe(want);
  });
});
