/**
 * The llama.cpp step's thread count at validation: ggml's threads spin-wait for one another, so
 * more threads than leave a CPU free slows every decode step (35–60× measured on a busy 2-core
 * machine). A count past that is TS-W013 on the value, naming the CPUs and what to set; a value
 * that is no whole number is TS-E062; the preset's own default (0: the step picks) is quiet.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePipeline } from '../../generator/index.js';
import { nodeEnvironment } from '../../generator/pipeline/environment.js';
import { sensibleThreads } from '../../generator/pipeline/checks/threads.js';

const ROOT = resolve(__dirname, '../..');
const FILE = join(ROOT, 'samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json');

/** The SmolLM2 sample with the llama step's n_threads set (undefined: the preset's), validated on `cpus` CPUs. */
function validate(threads: string | number | undefined, cpus: number) {
  const pipeline = JSON.parse(readFileSync(FILE, 'utf8')) as {
    steps: { name: string; parameters?: Record<string, unknown> }[];
  };
  const llama = pipeline.steps.find((s) => s.name === 'llama')!;
  if (threads === undefined) delete llama.parameters!.n_threads;
  else llama.parameters!.n_threads = threads;
  const text = JSON.stringify(pipeline, null, 2);
  const { diagnostics } = validatePipeline(text, FILE, { environment: { ...nodeEnvironment(), cpus } });
  const at = (d: { range: { start: { line: number; column: number } } }) =>
    text.split('\n')[d.range.start.line]!.slice(d.range.start.column);
  return diagnostics
    .filter((d) => d.code === 'TS-W013' || d.code === 'TS-E062')
    .map((d) => ({ code: d.code, severity: d.severity, message: d.message, at: at(d) }));
}

describe("a llama.cpp step's n_threads", () => {
  it('leaves one CPU free: on 2 CPUs 1 thread is the most, on 16 CPUs 15', () => {
    expect([1, 2, 16].map(sensibleThreads)).toEqual([1, 1, 15]);
  });

  it('passes quietly at 0 (the step picks), from the preset, and up to one fewer than the CPUs', () => {
    expect(validate(0, 2)).toEqual([]);
    expect(validate(undefined, 2)).toEqual([]);
    expect(validate('1', 2)).toEqual([]);
    expect(validate(7, 8)).toEqual([]);
  });

  it('past that is TS-W013 on the value, naming the CPUs and what to set', () => {
    expect(validate('2', 2)).toEqual([
      {
        code: 'TS-W013',
        severity: 'warning',
        message: expect.stringMatching(
          /^"n_threads": 2 threads on a machine with 2 CPUs: .*spin-wait.* Use 0 \(one fewer than the server's CPUs\) or at most 1 here/,
        ),
        at: expect.stringMatching(/^"2"/),
      },
    ]);
    expect(validate(64, 16).map((d) => d.message)).toEqual([expect.stringContaining('at most 15 here')]);
  });

  it('that is no whole number is TS-E062, an error', () => {
    for (const bad of ['two', '-1', '1.5', '']) {
      expect(validate(bad, 4)).toEqual([
        {
          code: 'TS-E062',
          severity: 'error',
          message: expect.stringContaining('must be a whole number of threads ≥ 0'),
          at: expect.stringMatching(/^"/),
        },
      ]);
    }
  });
});
