/** docs/PIPELINE.md stays the reference: it lists every diagnostic code and every preset. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/**
 * A user has the checkout and nothing else: every link in README.md and docs/ points to a file in
 * the repository, and no page sends the reader to the team's own notes (shared/…) or this machine.
 */
describe('docs a user can follow from the checkout alone', () => {
  const root = resolve(__dirname, '../..');
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it.each(pages)('%s links only to files in the repository', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared\/|\/work\/|shared\/(TRITON|DESIGN|VSCODE-TESTING)\.md/);
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((t) => !/^(https?:|mailto:|#)/.test(t))
      .map((t) => resolve(root, dirname(page), decodeURIComponent(t.split('#')[0]!)));
    for (const target of targets) {
      expect(target.startsWith(`${root}/`), `${page} links outside the repository: ${target}`).toBe(true);
      expect(existsSync(target), `${page} links to a missing file: ${target}`).toBe(true);
    }
  });
});
