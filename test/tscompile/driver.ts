/**
 * The C++ side of the differential harness: compiles the corpus with the TypeScript → C++
 * compiler and builds ONE driver binary for all programs (one g++ call, cached by content hash)
 * that reads encoded inputs on stdin and prints each result in the canonical text.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
export interface Prepared {
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
