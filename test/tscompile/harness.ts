/**
 * Differential harness for the TypeScript → C++ compiler: every program runs on the same
 * generated inputs in Node (the TS transpiled as is) and as compiled C++ (all programs in ONE
 * binary, one g++ call, cached by content hash), and the outputs must be byte-identical, or both
 * sides must throw the same error. Inputs come from fast-check, derived from the parameter
 * types of the program's entry function.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import fc from 'fast-check';
import ts from 'typescript';
import { compileModules, type CompiledModule } from '../../generator/tscompile/compile.js';
import { formatDiagnostic } from '../../generator/model/diagnostics.js';
import { cppName } from '../../generator/tscompile/cppText.js';
import { cppType, type StructField, type TsType } from '../../generator/tscompile/types.js';

export const ROOT = path.resolve(__dirname, '../..');
const RUNTIME_INCLUDE = path.join(ROOT, 'backends/tsrt/include');

export interface Program {
  /** Shown in reports. */
  name: string;
  /** Path of the .ts module. */
  file: string;
  /** The exported function the inputs are generated for (default `run`). */
  entry?: string;
}

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

interface Prepared {
  program: Program;
  module: CompiledModule;
  entry: string;
  params: TsType[];
  returns: TsType;
}

export function compileCorpus(programs: Program[]): Prepared[] {
  const modules = compileModules(
    programs.map((p) => ({ fileName: path.relative(ROOT, p.file), text: readFileSync(p.file, 'utf8') })),
    programs.map((_, i) => `prog${i}`),
  );
  return programs.map((program, i) => {
    const module = modules[i]!;
    if (module.diagnostics.length)
      throw new Error(
        `${program.name} does not compile:\n${module.diagnostics.map(formatDiagnostic).join('\n')}`,
      );
    const entry = program.entry ?? 'run';
    const fn = module.functions.get(entry);
    if (!fn) throw new Error(`${program.name} has no function ${entry}`);
    return { program, module, entry, params: fn.params.map((p) => p.type), returns: fn.returns };
  });
}

// ---- C++ side ----------------------------------------------------------------------------------

class CppCodecs {
  private readonly defs: string[] = [];
  private readonly names = new Map<string, string>();

  constructor(private readonly structsOf: (ns: string) => Map<string, StructField[]>) {}

  private key(t: TsType, ns: string): string {
    return t.kind === 'struct' ? `${ns}::${t.name}` : cppType(t);
  }

  private cpp(t: TsType, ns: string): string {
    switch (t.kind) {
      case 'struct':
        return `std::shared_ptr<${ns}::${t.name}>`;
      case 'array':
        return `tsrt::Array<${this.cpp(t.element, ns)}>`;
      case 'map':
        return `tsrt::Map<${this.cpp(t.key, ns)}, ${this.cpp(t.value, ns)}>`;
      default:
        return cppType(t);
    }
  }

  /** Name of a generated `T r_N(harness::Reader&)`. */
  reader(t: TsType, ns: string): string {
    const k = `r:${ns}:${this.key(t, ns)}:${JSON.stringify(t)}`;
    const known = this.names.get(k);
    if (known) return known;
    const name = `r_${this.names.size}`;
    this.names.set(k, name);
    const T = this.cpp(t, ns);
    let body: string;
    switch (t.kind) {
      case 'string':
        body = 'return r.string();';
        break;
      case 'number':
        body = 'return r.number();';
        break;
      case 'boolean':
        body = 'return r.boolean();';
        break;
      case 'array': {
        const e = this.reader(t.element, ns);
        body = `${T} a; size_t n = r.count(); for (size_t i = 0; i < n; ++i) a.p->push_back(${e}(r)); return a;`;
        break;
      }
      case 'typed':
        body = `size_t n = r.count(); tsrt::Array<double> a; for (size_t i = 0; i < n; ++i) a.p->push_back(r.number()); return ${T}(a);`;
        break;
      case 'struct': {
        const fields = this.structsOf(ns).get(t.name)!;
        const reads = fields.map((f) => `${this.reader(f.type, ns)}(r)`);
        body = `return std::make_shared<${ns}::${t.name}>(${ns}::${t.name}{${reads.join(', ')}});`;
        break;
      }
      case 'map': {
        const kr = this.reader(t.key, ns);
        const vr = this.reader(t.value, ns);
        body = `${T} m; size_t n = r.count(); for (size_t i = 0; i < n; ++i) { auto k = ${kr}(r); auto v = ${vr}(r); m.set(k, v); } return m;`;
        break;
      }
      case 'set': {
        const er = this.reader(t.element, ns);
        body = `${T} s; size_t n = r.count(); for (size_t i = 0; i < n; ++i) s.add(${er}(r)); return s;`;
        break;
      }
      default:
        throw new Error(`no input reader for ${t.kind}`);
    }
    this.defs.push(`static ${T} ${name}(harness::Reader& r) { ${body} }`);
    return name;
  }

  /** Name of a generated `void w_N(std::string&, const T&)`. */
  writer(t: TsType, ns: string): string {
    const k = `w:${ns}:${JSON.stringify(t)}`;
    const known = this.names.get(k);
    if (known) return known;
    const name = `w_${this.names.size}`;
    this.names.set(k, name);
    const T = this.cpp(t, ns);
    let body: string;
    switch (t.kind) {
      case 'string':
      case 'number':
      case 'boolean':
        body = 'harness::write(out, v);';
        break;
      case 'array': {
        const e = this.writer(t.element, ns);
        body = `out += "["; for (size_t i = 0; i < v.size(); ++i) { if (i) out += ","; ${e}(out, (*v.p)[i]); } out += "]";`;
        break;
      }
      case 'typed':
        body = `out += "["; for (size_t i = 0; i < v.size(); ++i) { if (i) out += ","; harness::write(out, static_cast<double>((*v.p)[i])); } out += "]";`;
        break;
      case 'struct': {
        const fields = this.structsOf(ns).get(t.name)!;
        body =
          `out += "{";` +
          fields
            .map(
              (f, i) =>
                `out += ${JSON.stringify(`${i ? ',' : ''}${f.name}:`)}; ${this.writer(f.type, ns)}(out, v->${cppName(f.name)});`,
            )
            .join(' ') +
          ` out += "}";`;
        break;
      }
      case 'map': {
        const kw = this.writer(t.key, ns);
        const vw = this.writer(t.value, ns);
        body = `out += "Map{"; bool first = true; for (auto& e : v.p->entries) { if (!e) continue; if (!first) out += ","; first = false; ${kw}(out, e->first); out += "=>"; ${vw}(out, e->second); } out += "}";`;
        break;
      }
      case 'set': {
        const ew = this.writer(t.element, ns);
        body = `out += "Set{"; bool first = true; for (auto& e : v.p->entries) { if (!e) continue; if (!first) out += ","; first = false; ${ew}(out, e->first); } out += "}";`;
        break;
      }
      default:
        throw new Error(`no output writer for ${t.kind}`);
    }
    this.defs.push(`static void ${name}(std::string& out, const ${T}& v) { ${body} }`);
    return name;
  }

  code(): string {
    return this.defs.join('\n');
  }
}

export function driverSource(prepared: Prepared[]): string {
  const codecs = new CppCodecs((ns) => prepared.find((p) => p.module.namespace === ns)!.module.structs);
  const cases = prepared.map((p, i) => {
    const ns = p.module.namespace;
    const reads = p.params.map((t, j) => `auto a${j} = ${codecs.reader(t, ns)}(r);`).join(' ');
    const args = p.params.map((_, j) => `a${j}`).join(', ');
    const call = `${ns}::${p.module.functions.get(p.entry)!.cppName}(${args})`;
    const write =
      p.returns.kind === 'void'
        ? `${call}; out += "undefined";`
        : `${codecs.writer(p.returns, ns)}(out, ${call});`;
    return `    case ${i}: { ${reads} ${write} break; }`;
  });
  const includes = prepared.map((p) => p.module.cpp.replace('#pragma once\n', '')).join('\n');
  return [
    '// Generated by test/tscompile/harness.ts: every corpus program and a driver.',
    '#include "harness.h"',
    includes,
    codecs.code(),
    'int main() {',
    '  std::ios::sync_with_stdio(false);',
    '  harness::Reader r{std::cin};',
    '  std::string line;',
    '  int program;',
    '  while (std::cin >> program) {',
    '    std::string out;',
    '    try {',
    '      switch (program) {',
    ...cases,
    '      default: return 2;',
    '      }',
    '    } catch (const tsrt::Error& e) {',
    '      out = "!" + tsrt::toUtf8(e.name) + ": " + tsrt::toUtf8(e.message);',
    '    }',
    '    std::cout << out << "\\n";',
    '  }',
    '  return 0;',
    '}',
    '',
  ].join('\n');
}

/** Builds the driver with one g++ call into build/tscompile-harness/, reusing an identical build. */
export function buildDriver(source: string, buildDir = path.join(ROOT, 'build/tscompile-harness')): string {
  mkdirSync(buildDir, { recursive: true });
  const header = readFileSync(path.join(ROOT, 'test/tscompile/harness.h'), 'utf8');
  const runtime = readdirSync(path.join(RUNTIME_INCLUDE, 'triton_studio'))
    .filter((f) => f.startsWith('ts_') && f.endsWith('.h'))
    .sort()
    .map((f) => readFileSync(path.join(RUNTIME_INCLUDE, 'triton_studio', f), 'utf8'));
  const hash = createHash('sha256')
    .update(source)
    .update(header)
    .update(runtime.join(''))
    .digest('hex')
    .slice(0, 16);
  const binary = path.join(buildDir, `driver-${hash}`);
  if (existsSync(binary)) return binary;
  const src = path.join(buildDir, `driver-${hash}.cc`);
  writeFileSync(src, source);
  const tmp = `${binary}.tmp${process.pid}`;
  const r = spawnSync(
    'g++',
    [
      '-std=c++17',
      '-O1',
      '-w',
      `-I${path.join(ROOT, 'test/tscompile')}`,
      `-I${RUNTIME_INCLUDE}`,
      src,
      '-o',
      tmp,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`g++ failed on ${src}:\n${(r.stderr ?? '').slice(0, 6000)}`);
  renameSync(tmp, binary);
  return binary;
}

// ---- inputs ------------------------------------------------------------------------------------

/** Strings that exercise UTF-16: astral characters, combining marks, case specials, markers. */
const INTERESTING = [
  'a',
  'B',
  ' ',
  '\n',
  '\t',
  'ß',
  'İ',
  'ı',
  'Σ',
  'σ',
  'ς',
  'ﬁ',
  'ǅ',
  'é',
  'e\u0301',
  '😀',
  '𝒜',
  '\u0301',
  '\ud800',
  '\udc00',
  '</s>',
  '[INST]',
  '#',
  '###',
  '$&',
  '$$',
  '0',
  '1',
  '.',
  ',',
  '\u00a0',
  '\u2028',
  '\ufeff',
  'Ω',
];

const unitString = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  maxLength: 12,
});

export function stringArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...INTERESTING), maxLength: 16 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 1, arbitrary: unitString },
    { weight: 1, arbitrary: fc.string({ maxLength: 16 }) },
    { weight: 1, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.string({ unit: fc.constantFrom(...INTERESTING), minLength: 500, maxLength: 3000 }),
    },
  );
}

export function numberArbitrary(): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.double() },
    { weight: 3, arbitrary: fc.integer({ min: -20, max: 20 }) },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double({ min: -1000, max: 1000, noNaN: true }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        0,
        -0,
        NaN,
        Infinity,
        -Infinity,
        0.5,
        -0.5,
        1.5,
        2.5,
        1.005,
        1e21,
        1e-7,
        123.456,
        2 ** 31,
        2 ** 32,
        -(2 ** 31),
        2 ** 53,
      ),
    },
  );
}

export function arbitrary(t: TsType, structs: Map<string, StructField[]>): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case 'string':
      return stringArbitrary();
    case 'number':
      return numberArbitrary();
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitrary(t.element, structs), { maxLength: 12 });
    case 'typed': {
      const ctor = globalThis[t.name];
      return fc.array(numberArbitrary(), { maxLength: 12 }).map((xs) => ctor.from(xs));
    }
    case 'struct': {
      const fields = structs.get(t.name)!;
      return fc
        .tuple(...fields.map((f) => arbitrary(f.type, structs)))
        .map((vals) => Object.fromEntries(fields.map((f, i) => [f.name, vals[i]])));
    }
    case 'map':
      return fc
        .array(fc.tuple(arbitrary(t.key, structs), arbitrary(t.value, structs)), { maxLength: 10 })
        .map((es) => new Map(es));
    case 'set':
      return fc.array(arbitrary(t.element, structs), { maxLength: 10 }).map((es) => new Set(es));
    default:
      throw new Error(`no inputs for ${t.kind}`);
  }
}

function hexDouble(v: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return b.readBigUInt64LE().toString(16);
}

export function encodeInput(v: unknown, t: TsType, structs: Map<string, StructField[]>): string {
  switch (t.kind) {
    case 'string': {
      const s = v as string;
      let hex = '';
      for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0');
      return `${s.length}:${hex}`;
    }
    case 'number':
      return hexDouble(v as number);
    case 'boolean':
      return v ? '1' : '0';
    case 'array':
      return [
        (v as unknown[]).length,
        ...(v as unknown[]).map((x) => encodeInput(x, t.element, structs)),
      ].join(' ');
    case 'typed':
      return [(v as Float64Array).length, ...Array.from(v as Float64Array, hexDouble)].join(' ');
    case 'struct':
      return structs
        .get(t.name)!
        .map((f) => encodeInput((v as Record<string, unknown>)[f.name], f.type, structs))
        .join(' ');
    case 'map':
      return [
        (v as Map<unknown, unknown>).size,
        ...[...(v as Map<unknown, unknown>)].map(
          ([k, x]) => `${encodeInput(k, t.key, structs)} ${encodeInput(x, t.value, structs)}`,
        ),
      ].join(' ');
    case 'set':
      return [
        (v as Set<unknown>).size,
        ...[...(v as Set<unknown>)].map((x) => encodeInput(x, t.element, structs)),
      ].join(' ');
    default:
      throw new Error(`cannot encode ${t.kind}`);
  }
}

/** The canonical text both sides print: JSON-quoted strings, -0 kept, fields in declaration order. */
export function canonical(v: unknown, t: TsType, structs: Map<string, StructField[]>): string {
  switch (t.kind) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'boolean':
      return String(v);
    case 'void':
      return 'undefined';
    case 'array':
      return `[${(v as unknown[]).map((x) => canonical(x, t.element, structs)).join(',')}]`;
    case 'typed':
      return `[${Array.from(v as Float64Array, (x) => canonical(x, { kind: 'number' }, structs)).join(',')}]`;
    case 'struct':
      return `{${structs
        .get(t.name)!
        .map((f) => `${f.name}:${canonical((v as Record<string, unknown>)[f.name], f.type, structs)}`)
        .join(',')}}`;
    case 'map':
      return `Map{${[...(v as Map<unknown, unknown>)].map(([k, x]) => `${canonical(k, t.key, structs)}=>${canonical(x, t.value, structs)}`).join(',')}}`;
    case 'set':
      return `Set{${[...(v as Set<unknown>)].map((x) => canonical(x, t.element, structs)).join(',')}}`;
    default:
      throw new Error(`cannot print ${t.kind}`);
  }
}

function cloneInput(v: unknown): unknown {
  return structuredClone(v);
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
