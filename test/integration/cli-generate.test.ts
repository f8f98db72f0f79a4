/**
 * `triton-studio generate` as users run it: pipeline errors compiler-style with nothing written,
 * and the repository reported as JSON.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PIPELINE, cli } from './cli-fixture.js';

const scratch = mkdtempSync(join(tmpdir(), 'ts-cli-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('generate', () => {
  it('prints pipeline errors compiler-style, exits 1 and writes nothing', async () => {
    const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as { wires: { from: string; to: string }[] };
    pipeline.wires[0]!.to = 'preprocessing.NO_SUCH_PORT';
    const file = join(scratch, 'broken.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline, null, 2));
    const out = join(scratch, 'broken-repo');
    const run = await cli(['generate', file, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: error TS-E\\d{3}: .*NO_SUCH_PORT`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('writes the repository and reports it as JSON', async () => {
    const out = join(scratch, 'generated');
    const run = await cli(['generate', PIPELINE, '--out', out, '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { ok: boolean; ensembleName: string; files: string[] };
    expect(result.ok).toBe(true);
    expect(result.ensembleName).toBe('gpt2_sim');
    for (const file of result.files) expect(existsSync(join(out, file))).toBe(true);
  });
});
