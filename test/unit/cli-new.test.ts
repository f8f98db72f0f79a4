/**
 * `triton-studio new --preset <family>`: the pipeline VS Code's "New Pipeline" (from a preset)
 * makes, written to a file that validates; `--list` names every family, the encoder ones included.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/main.js';
import { pipelineFromPresets, presetFamilies, validatePipeline } from '../../generator/index.js';

const work = mkdtempSync(join(tmpdir(), 'ts-cli-new-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs the CLI, capturing what it prints. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((c) => (stdout.push(c.toString()), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((c) => (stderr.push(c.toString()), true));
  try {
    const code = await runCli(argv);
    process.exitCode = 0;
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('triton-studio new', () => {
  it('--list names every preset family, one a line', async () => {
    const { code, stdout } = await cli(['new', '--list']);
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => l.split(':')[0]),
    ).toEqual(presetFamilies().map((f) => f.id));
    expect(stdout).toContain('embedding-onnx: tokenize (tokenize) → model (model)');
    expect(stdout).toContain('reranker-onnx: tokenize (tokenize) → model (model)');
  });

  it.each(['embedding-onnx', 'reranker-onnx'])(
    '--preset %s writes the preset pipeline, which validates clean',
    async (family) => {
      const file = join(work, `${family}.pipeline.json`);
      const { code, stdout, stderr } = await cli([
        'new',
        '--preset',
        family,
        '--tokenizer',
        'bert-base-uncased',
        '--out',
        file,
      ]);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain(`wrote ${file}`);
      const text = readFileSync(file, 'utf8');
      expect(JSON.parse(text)).toEqual(pipelineFromPresets(family, { tokenizer: 'bert-base-uncased' }));
      expect(validatePipeline(text, file).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      // A second time the file is kept unless --force.
      const again = await cli(['new', '--preset', family, '--out', file]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('exists: choose another --out, or --force');
    },
  );

  it('an unknown family or none says what to do', async () => {
    const unknown = await cli(['new', '--preset', 'bert', '--out', join(work, 'x.json')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no preset family 'bert': use one of tensorrt-llm");
    expect(existsSync(join(work, 'x.json'))).toBe(false);
    const none = await cli(['new']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--preset <family> (--list names them)');
  });
});
