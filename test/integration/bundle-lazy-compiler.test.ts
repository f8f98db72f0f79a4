/**
 * The TypeScript-step compiler (ts-morph + typescript, ~14 MB) is its own bundle,
 * out/tscompile.js: the extension and the CLI load it on first use, so activation and CLI start-up
 * do not pay for it. Runs against `npm run compile`'s output, as CI builds it before these tests.
 * From the sources (the CLI in a checkout runs them through tsx) ts-morph is loaded on first use too
 * (generator/tscompile/tsMorph.ts): ~37 MB of heap that `perf` would otherwise carry.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const out = (f: string) => join(ROOT, 'out', f);

/** Runs the bundled CLI in a fresh node; reports its exit code and whether the compiler loaded. */
function cli(args: string[]): { code: number; compilerLoaded: boolean; output: string } {
  const script =
    "process.on('exit', () => process.stderr.write('\\nLOADED=' + Object.keys(require.cache).some((k) => k.endsWith('tscompile.js'))));" +
    `require(${JSON.stringify(out('cli.js'))}).runCli(process.argv.slice(1)).then((c) => (process.exitCode = c));`;
  const r = spawnSync(process.execPath, ['-e', script, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status ?? -1, compilerLoaded: /LOADED=true/.test(r.stderr), output: r.stdout + r.stderr };
}

/** Runs the CLI from its TypeScript sources, as bin/triton-studio.js does in a checkout. */
function cliFromSources(args: string[]): { code: number; tsMorphLoaded: boolean } {
  const script =
    "process.on('exit', () => process.stderr.write('\\nLOADED=' + Object.keys(require.cache).some((k) => k.includes('/node_modules/ts-morph/'))));" +
    "require('tsx/cjs/api').register();" +
    `require(${JSON.stringify(join(ROOT, 'cli/main.ts'))}).runCli(process.argv.slice(1)).then((c) => (process.exitCode = c));`;
  const r = spawnSync(process.execPath, ['-e', script, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status ?? -1, tsMorphLoaded: /LOADED=true/.test(r.stderr) };
}

beforeAll(() => {
  for (const f of ['cli.js', 'extension.js', 'tscompile.js'])
    expect(existsSync(out(f)), `out/${f} missing: run \`npm run compile\``).toBe(true);
});

describe('the compiler of TypeScript steps loads lazily', () => {
  it('is not inside the extension and CLI bundles', () => {
    for (const f of ['cli.js', 'extension.js']) {
      expect(statSync(out(f)).size).toBeLessThan(5_000_000);
      expect(readFileSync(out(f), 'utf8')).not.toContain('ts-morph');
    }
    expect(statSync(out('tscompile.js')).size).toBeGreaterThan(5_000_000);
  });

  it('a pipeline without TypeScript modules validates without loading it', () => {
    const r = cli(['validate', 'samples/gpt2-sim/gpt2-sim.pipeline.json']);
    expect(r.code).toBe(0);
    expect(r.compilerLoaded).toBe(false);
  });

  it('a pipeline with hooks, and a .ts module, load it on first use and validate as from the sources', () => {
    const r = cli(['validate', '--json', 'samples/llama2-tensorrt-llm/llama2-tensorrt-llm.pipeline.json']);
    expect(r.code).toBe(0);
    expect(r.compilerLoaded).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'ts-lazy-'));
    writeFileSync(join(dir, 'bad.ts'), 'export function f(s: string): boolean {\n  return /a/.test(s);\n}\n');
    const bad = cli(['validate', join(dir, 'bad.ts')]);
    rmSync(dir, { recursive: true, force: true });
    expect(bad.compilerLoaded).toBe(true);
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/bad\.ts:2:10: error TS-E080: regular expressions are not in the subset/);
  });
});

describe('from the sources, ts-morph loads on first use', () => {
  it('not for a pipeline without TypeScript modules, and for one with hooks', () => {
    const plain = cliFromSources(['validate', 'samples/gpt2-sim/gpt2-sim.pipeline.json']);
    expect(plain).toEqual({ code: 0, tsMorphLoaded: false });
    const hooks = cliFromSources([
      'validate',
      'samples/llama2-tensorrt-llm/llama2-tensorrt-llm.pipeline.json',
    ]);
    expect(hooks).toEqual({ code: 0, tsMorphLoaded: true });
  });
});
