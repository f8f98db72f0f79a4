/**
 * The TypeScript → C++ compiler's contract with its users: what is outside the subset is a
 * diagnostic at its exact range saying what to write instead (docs/HOOKS.md); what is inside
 * compiles. That the compiled code behaves like Node is test/integration/tscompile-differential.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileModule, formatDiagnostic } from '../../generator/index.js';
import { CASE_TABLES_HEADER, caseTablesHeader } from '../../scripts/gen-ts-case-tables.js';

const ROOT = path.resolve(__dirname, '../..');

/** Compiles `text` and returns its diagnostics as `line:col-line:col code message` (1-based). */
function diagnose(text: string): string[] {
  return compileModule({ fileName: 'hooks/x.ts', text }).diagnostics.map(
    (d) =>
      `${d.range.start.line + 1}:${d.range.start.column + 1}-${d.range.end.line + 1}:${d.range.end.column + 1} ${d.code} ${d.message}`,
  );
}

/** The exact source text a diagnostic's range covers. */
function covered(text: string, code = 'TS-E080'): string[] {
  const lines = text.split('\n');
  return compileModule({ fileName: 'x.ts', text })
    .diagnostics.filter((d) => d.code === code)
    .map((d) => {
      const { start, end } = d.range;
      if (start.line === end.line) return lines[start.line]!.slice(start.column, end.column);
      return `${lines[start.line]!.slice(start.column)}…`;
    });
}

describe('the subset: what is rejected, where, and what to write instead', () => {
  it.each([
    [
      'regular expressions',
      `export function f(s: string): boolean { return /a+/.test(s); }`,
      '/a+/',
      /indexOf, includes, split/,
    ],
    ['loose equality', `export function f(a: number): boolean { return a == 1; }`, '==', /write ===/],
    [
      'truthiness',
      `export function f(s: string): number { if (s) return 1; return 0; }`,
      's',
      /must be a boolean.*s\.length > 0/,
    ],
    ['var', `export function f(): number { var x = 1; return x; }`, 'var x = 1;', /use let or const/],
    [
      'Math.log',
      `export function f(x: number): number { return Math.log(x); }`,
      'Math.log',
      /round it differently/,
    ],
    ['exponent operator', `export function f(x: number): number { return x ** 2; }`, 'x ** 2', /x \* x/],
    [
      'module-level let',
      `let n = 0;\nexport function f(): number { return n; }`,
      'let n = 0;',
      /shared by every request/,
    ],
    [
      'mutable module constant',
      `const xs: string[] = [];\nexport function f(): number { return xs.length; }`,
      'xs: string[] = []',
      /readonly string\[\]/,
    ],
    ['class', `class A {}\nexport function f(): number { return 1; }`, 'A', /use an interface/],
    [
      'optional property',
      `export interface P { a?: string }\nexport function f(p: P): number { return 1; }`,
      'P',
      /optional property a of P/,
    ],
    [
      'object literal order',
      `export interface P { a: string; b: number }\nexport function f(): P { return { b: 1, a: '' }; }`,
      `{ b: 1, a: '' }`,
      /order P declares them: \{ a, b \}/,
    ],
    [
      'undefined',
      `export function f(xs: number[]): number { const x = xs.pop(); return 1; }`,
      'x = xs.pop()',
      /\?\? default/,
    ],
    ['any', `export function f(x: any): number { return 1; }`, 'x: any', /any\/unknown/],
    [
      'try/catch',
      `export function f(): number { try { return 1; } catch { return 2; } }`,
      'try { return 1; } catch { return 2; }',
      /check the condition/,
    ],
    [
      'function values',
      `export function f(xs: number[]): number { const g = (x: number) => x; return xs.length; }`,
      '(x: number) => x',
      /function values/,
    ],
    ['parseInt', `export function f(s: string): number { return parseInt(s); }`, 'parseInt', /Number\(s\)/],
    [
      'localeCompare',
      `export function f(a: string, b: string): number { return a.localeCompare(b); }`,
      'a.localeCompare',
      /locale data/,
    ],
  ])('%s', (_what, text, range, message) => {
    const ds = compileModule({ fileName: 'x.ts', text }).diagnostics.filter((d) => d.code === 'TS-E080');
    expect(ds.map((d) => d.message)).toEqual([expect.stringMatching(message)]);
    expect(covered(text)).toEqual([range]);
  });

  it('reports every unsupported statement, not only the first', () => {
    const text = [
      'export function f(s: string): number {',
      '  if (s) return 1;',
      '  const r = /x/;',
      '  return 0;',
      '}',
    ].join('\n');
    expect(diagnose(text).map((d) => d.split(' ')[0])).toEqual(['2:7-2:8', '3:13-3:16']);
  });

  it('type errors are diagnostics too, at the checker’s range', () => {
    const text = `export function f(s: string): number {\n  return s;\n}`;
    expect(diagnose(text)).toEqual([
      `2:3-2:9 TS-E081 TypeScript: Type 'string' is not assignable to type 'number'.`,
    ]);
  });

  it('a call with more arguments than its function takes is a diagnostic, not a crash of the compiler', () => {
    const text = [
      'function f(a: string): string {',
      "  return a + '!';",
      '}',
      'export function g(s: string): string {',
      "  return f(s, 'extra');",
      '}',
    ].join('\n');
    expect(diagnose(text)).toEqual([`5:15-5:22 TS-E081 TypeScript: Expected 1 arguments, but got 2.`]);
  });

  it('prints like a compiler', () => {
    const [d] = compileModule({
      fileName: 'hooks/chat.ts',
      text: 'export function f(a: number): boolean { return a == 1; }',
    }).diagnostics;
    expect(formatDiagnostic(d!)).toBe(
      'hooks/chat.ts:1:50: error TS-E080: == and != convert types: write ===',
    );
  });
});

describe('what compiles', () => {
  it('gives C++ for a module in the subset, with its exported signatures', () => {
    const m = compileModule({
      fileName: 'steps/label.ts',
      text: [
        'export interface Row { logits: Float32Array }',
        'export interface Out { label: string; score: number }',
        "const NAMES: readonly string[] = ['neg', 'pos'];",
        'export function execute(rows: Row[]): Out[] {',
        '  return rows.map((r) => ({ label: NAMES[r.logits[0] > r.logits[1] ? 0 : 1], score: Math.max(r.logits[0], r.logits[1]) }));',
        '}',
      ].join('\n'),
    });
    expect(m.diagnostics).toEqual([]);
    expect(m.cpp).toContain('#include "triton_studio/ts_runtime.h"');
    expect(m.cpp).toContain('struct Row {\n  tsrt::TypedArray<float> logits;\n};');
    expect(m.functions.get('execute')).toMatchObject({
      exported: true,
      params: [{ name: 'rows', type: { kind: 'array', element: { kind: 'struct', name: 'Row' } } }],
      returns: { kind: 'array', element: { kind: 'struct', name: 'Out' } },
    });
    expect(m.structs.get('Out')!.map((f) => f.name)).toEqual(['label', 'score']);
  });
});

describe('case mapping tables', () => {
  it('the committed header is what this Node produces (regenerate with scripts/gen-ts-case-tables.ts)', () => {
    expect(readFileSync(path.join(ROOT, CASE_TABLES_HEADER), 'utf8')).toBe(caseTablesHeader());
  });
});
