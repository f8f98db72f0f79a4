/**
 * The compiled C++ of every TypeScript step and hook behaves like Node: each program of the
 * corpus (test/tscompile/corpus, every construct of the subset) and every hook and custom step in
 * samples/ runs on 1,000 generated inputs in Node and as C++ (one binary for all), and the
 * outputs are byte-identical or both sides throw the same error.
 * TS_DIFF_RUNS / TS_DIFF_SEED change the number of inputs and the seed.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runDifferential, type Program, type ProgramResult } from '../tscompile/harness.js';
import { SAMPLE_PROGRAMS } from '../tscompile/samples.js';

const CORPUS = path.join(ROOT, 'test/tscompile/corpus');
const corpus: Program[] = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.ts'))
  .sort()
  .map((f) => ({ name: `corpus/${f}`, file: path.join(CORPUS, f) }));

const runs = Number(process.env.TS_DIFF_RUNS ?? 1000);
const seed = process.env.TS_DIFF_SEED ? Number(process.env.TS_DIFF_SEED) : undefined;

describe('TypeScript → C++: same results as Node', () => {
  let results: ProgramResult[] = [];

  it('compiles the corpus and the samples into one driver and runs every input on both sides', () => {
    results = runDifferential([...corpus, ...SAMPLE_PROGRAMS], { runs, seed });
    expect(results.length).toBe(corpus.length + SAMPLE_PROGRAMS.length);
  });

  it('has at least 30 corpus programs', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  it.each([...corpus, ...SAMPLE_PROGRAMS].map((p) => p.name))('%s: byte-identical on every input', (name) => {
    const r = results.find((x) => x.name === name);
    expect(r, 'the run above failed').toBeDefined();
    expect(r!.runs).toBe(runs);
    expect(r!.mismatches.slice(0, 3)).toEqual([]);
  });
});
