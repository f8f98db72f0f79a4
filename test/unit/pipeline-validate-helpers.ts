/**
 * Shared set-up of the pipeline-validate-*.test.ts files: the gpt2-sim sample as the base every
 * test edits, and `only`, which validates an edit expecting exactly one diagnostic and returns
 * the text its range covers.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import { formatDiagnostic, validatePipeline, type Diagnostic, type Pipeline } from '../../generator/index.js';

export const FILE = resolve(__dirname, '../fixtures/pipelines/inline.pipeline.json');
export const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
export const base = (): Pipeline => JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;

/** The text a diagnostic's range covers. */
export function covered(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.column;
  return text.slice(offset(d.range.start), offset(d.range.end));
}

export function run(text: string) {
  return validatePipeline(text, FILE).diagnostics;
}

/** Validates the sample after `edit`, expecting exactly one diagnostic with `code`. */
export function only(code: string, edit: (p: Pipeline) => void): { d: Diagnostic; text: string; at: string } {
  const p = base();
  edit(p);
  const text = JSON.stringify(p, null, 2);
  const ds = run(text).filter((d) => d.severity !== 'info');
  expect(
    ds.map((d) => d.code),
    ds.map(formatDiagnostic).join('\n'),
  ).toEqual([code]);
  return { d: ds[0]!, text, at: covered(text, ds[0]!) };
}

export const wire = (p: Pipeline, to: string) => p.wires.find((w) => w.to === to)!;
export const step = (p: Pipeline, name: string) => p.steps.find((s) => s.name === name)!;
