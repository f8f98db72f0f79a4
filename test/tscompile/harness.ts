/**
 * Differential harness for the TypeScript → C++ compiler: every program runs on the same
 * generated inputs in Node (the TS transpiled as is) and as compiled C++ (all programs in ONE
 * binary, one g++ call, cached by content hash), and the outputs must be byte-identical, or both
 * sides must throw the same error. Inputs come from fast-check, derived from the parameter
 * types of the program's entry function.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import fc from 'fast-check';
import ts from 'typescript';
import { buildDriver, compileCorpus, driverSource, type Program } from './driver.js';
import { arbitrary, canonical, cloneInput, encodeInput } from './inputs.js';

export { ROOT, type Program } from './driver.js';
export { numberArbitrary, stringArbitrary } from './inputs.js';

export interface Mismatch {
  input: string;
  node: string;
  cpp: string;
}

export interface ProgramResult {
  name: string;
  runs: number;
  mismatches: Mismatch[];
}

/** The module as Node runs it: TypeScript's own transpiler, evaluated in this realm. */
export function loadInNode(file: string): Record<string, (...args: unknown[]) => unknown> {
  const js = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const exports: Record<string, (...args: unknown[]) => unknown> = {};
  vm.runInThisContext(`(function (exports) {${js}\n})`, { filename: file })(exports);
  return exports;
}

export interface DifferentialOptions {
  runs?: number;
  seed?: number;
}

/** Runs every program on `runs` generated inputs in Node and in the compiled driver. */
export function runDifferential(programs: Program[], options: DifferentialOptions = {}): ProgramResult[] {
  const runs = options.runs ?? 1000;
  const seed = options.seed ?? 20261123;
  const prepared = compileCorpus(programs);
  const binary = buildDriver(driverSource(prepared));
  const lines: string[] = [];
  const expected: Array<{ program: number; input: unknown[]; node: string }> = [];
  prepared.forEach((p, i) => {
    const structs = p.module.structs;
    const arb = fc.tuple(...p.params.map((t) => arbitrary(t, structs)));
    const inputs = fc.sample(arb, { numRuns: runs, seed: seed + i });
    const fn = loadInNode(p.program.file)[p.entry]!;
    for (const args of inputs) {
      let node: string;
      try {
        node = canonical(fn(...(cloneInput(args) as unknown[])), p.returns, structs);
      } catch (e) {
        const err = e as Error;
        node = `!${err.name}: ${err.message}`;
      }
      expected.push({ program: i, input: args, node });
      lines.push(`${i} ${args.map((a, j) => encodeInput(a, p.params[j]!, structs)).join(' ')}`);
    }
  });
  const out = execFileSync(binary, [], {
    input: lines.join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const got = out.split('\n');
  const results = prepared.map((p) => ({ name: p.program.name, runs: 0, mismatches: [] as Mismatch[] }));
  expected.forEach((x, k) => {
    const r = results[x.program]!;
    r.runs++;
    const cpp = got[k] ?? '<no output: the driver stopped>';
    if (cpp !== x.node && r.mismatches.length < 5) {
      r.mismatches.push({
        input: JSON.stringify(x.input, (_, v) =>
          typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
        ).slice(0, 400),
        node: x.node.slice(0, 400),
        cpp: cpp.slice(0, 400),
      });
    } else if (cpp !== x.node) {
      r.mismatches.push({ input: '', node: '', cpp: '' });
    }
  });
  return results;
}
