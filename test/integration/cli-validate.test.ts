/**
 * `triton-studio validate` as users run it: the samples pass; pipeline errors and TypeScript
 * modules outside the compiled subset are printed compiler-style with their codes, and as JSON.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PIPELINE, cli } from './cli-fixture.js';
import { ROOT } from './run-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'ts-cli-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('validate', () => {
  it('passes every sample and exits 0', async () => {
    const samples = ['gpt2-sim', 'codegen-fastertransformer', 'llama2-tensorrt-llm'].map((s) =>
      join(ROOT, 'samples', s, `${s}.pipeline.json`),
    );
    const run = await cli(['validate', ...samples]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 pipeline files OK');
    expect(run.stderr).not.toMatch(/ error /);
  });

  it('prints each error compiler-style with its code, exits 1, and reports them as JSON', async () => {
    const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as { wires: { from: string; to: string }[] };
    pipeline.wires[0]!.from = 'nowhere.OUT';
    const file = join(scratch, 'invalid.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline, null, 2));
    const run = await cli(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/invalid\.pipeline\.json:\d+:\d+: error TS-E\d{3}: .*nowhere/);
    const json = await cli(['validate', file, '--json']);
    const result = JSON.parse(json.stdout) as { ok: boolean; files: { diagnostics: { code: string }[] }[] };
    expect(result.ok).toBe(false);
    expect(result.files[0]!.diagnostics.some((d) => d.code.startsWith('TS-E'))).toBe(true);
  });

  it('checks TypeScript steps and hooks against the compiled subset, compiler-style', async () => {
    const hook = join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
    const good = await cli(['validate', hook]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('1 module OK');
    const file = join(scratch, 'bad-hook.ts');
    writeFileSync(
      file,
      'export function beforeEncode(prompt: string): string {\n  return prompt.replace(/a/g, "b");\n}\n',
    );
    const bad = await cli(['validate', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${file}:2:25: error TS-E080: regular expressions are not in the subset`);
  });

  it('says which file it cannot read', async () => {
    const run = await cli(['validate', join(scratch, 'missing.pipeline.json')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot read');
    expect(run.stderr).toContain('missing.pipeline.json');
  });
});
