/**
 * The TypeScript → C++ compiler for hooks and custom steps: ts-morph and the TypeScript checker
 * read the module, `Emitter` translates the subset documented in docs/HOOKS.md, everything else
 * becomes a diagnostic at its exact range saying what to write instead.
 */
import type {
  FunctionDeclaration,
  InterfaceDeclaration,
  SourceFile,
  Statement,
  TypeAliasDeclaration,
  VariableStatement,
  ts as TypeScript,
} from 'ts-morph';
import { Node, Project, ts } from './tsMorph.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { cppName } from './cppText.js';
import { Emitter, Unsupported } from './emit/emitter.js';
import { cppType, type StructField, type TsType } from './types.js';

export interface ModuleSource {
  /** The path diagnostics name (as the user wrote it, e.g. relative to the pipeline file). */
  fileName: string;
  text: string;
}

export interface FunctionInfo {
  name: string;
  /** The C++ name inside the module's namespace. */
  cppName: string;
  params: Array<{ name: string; type: TsType }>;
  returns: TsType;
  exported: boolean;
}

export interface CompiledModule {
  fileName: string;
  /** C++ namespace holding the module's structs and functions. */
  namespace: string;
  diagnostics: Diagnostic[];
  /** The module as C++ (includes ts_runtime.h); empty when there are errors. */
  cpp: string;
  functions: Map<string, FunctionInfo>;
  /** Interfaces and object type aliases, fields in declaration order. */
  structs: Map<string, StructField[]>;
}

/** A function, not a constant: reading `ts` loads ts-morph (tsMorph.ts). */
const compilerOptions = (): TypeScript.CompilerOptions => ({
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  lib: ['lib.es2022.d.ts'],
  noEmit: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: false,
  types: [],
});

/** Compiles several modules with one type checker (the differential harness compiles 30+). */
export function compileModules(sources: ModuleSource[], namespaces?: string[]): CompiledModule[] {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: compilerOptions() });
  const files = sources.map((s, i) => project.createSourceFile(`/m${i}/${baseName(s.fileName)}`, s.text));
  return sources.map((s, i) =>
    compileFile(files[i]!, s.fileName, namespaces?.[i] ?? `ts_${sanitize(baseName(s.fileName))}`),
  );
}

export function compileModule(source: ModuleSource, namespace?: string): CompiledModule {
  return compileModules([source], namespace ? [namespace] : undefined)[0]!;
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() || 'module.ts';
}

function sanitize(name: string): string {
  return name.replace(/\.ts$/, '').replace(/[^A-Za-z0-9_]/g, '_');
}

function compileFile(sf: SourceFile, fileName: string, namespace: string): CompiledModule {
  const { diagnostics, report } = reporter(sf, fileName);
  for (const d of sf.getPreEmitDiagnostics()) {
    if (d.getCategory() !== ts.DiagnosticCategory.Error) continue;
    const start = d.getStart() ?? 0;
    report(
      sf,
      `TypeScript: ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, '\n')}`,
      'TS-E081',
      start,
      start + (d.getLength() ?? 0),
    );
  }

  const structs = new Map<string, StructField[]>();
  const functionDecls = sf.getFunctions();
  const moduleFunctions = new Set(functionDecls.map((f) => f.getName() ?? ''));
  const constants = new Set<string>();
  const emitter = new Emitter(sf.getFilePath(), structs, moduleFunctions, constants);
  const onError = (e: Unsupported): void => report(e.node, e.message);
  const guard = (f: () => void): void => {
    try {
      f();
    } catch (e) {
      if (e instanceof Unsupported) onError(e);
      else throw e;
    }
  };
  const out: ModuleParts = { constantLines: [], functions: new Map(), prototypes: [], bodies: [] };

  // Types first: object literals anywhere match the module's interfaces by shape.
  const statements = [...sf.getStatements()].sort(
    (a, b) => Number(isTypeDeclaration(b)) - Number(isTypeDeclaration(a)),
  );
  for (const st of statements) {
    if (Node.isInterfaceDeclaration(st) || Node.isTypeAliasDeclaration(st))
      guard(() => checkTypeDeclaration(emitter, st));
    else if (Node.isFunctionDeclaration(st)) {
      if (!st.getBody()) continue; // an overload signature: reported by signature()
      guard(() => compileFunction(emitter, st, onError, out));
    } else if (Node.isVariableStatement(st)) guard(() => compileConstants(emitter, st, constants, out));
    else {
      const [node, message] = rejectedStatement(st);
      report(node, message);
    }
  }

  // A module that does not type-check gets its type errors only: the subset check of code the
  // checker rejected would repeat them in other words.
  if (diagnostics.some((d) => d.code === 'TS-E081')) {
    diagnostics.splice(0, diagnostics.length, ...diagnostics.filter((d) => d.code === 'TS-E081'));
  }
  const ok = !diagnostics.some((d) => d.severity === 'error');
  const cpp = ok
    ? [
        `// Generated by Triton Studio from ${fileName.replace(/[\r\n]/g, ' ')}: do not edit (edit the .ts file).`,
        '#pragma once',
        '#include "triton_studio/ts_runtime.h"',
        '',
        `namespace ${namespace} {`,
        '',
        ...structDefinitions(structs),
        ...jsonWriters(structs),
        '',
        ...out.prototypes,
        '',
        ...out.constantLines,
        '',
        ...out.bodies,
        `}  // namespace ${namespace}`,
        '',
      ].join('\n')
    : '';
  return { fileName, namespace, diagnostics, cpp, functions: out.functions, structs };
}

/** What the module's declarations add to its header, in the order the header lists them. */
interface ModuleParts {
  constantLines: string[];
  functions: Map<string, FunctionInfo>;
  prototypes: string[];
  bodies: string[];
}

type Report = (
  node: Node,
  message: string,
  code?: 'TS-E080' | 'TS-E081',
  start?: number,
  end?: number,
) => void;

/** The module's diagnostics and the function that adds one at a node (or an explicit span). */
function reporter(sf: SourceFile, fileName: string): { diagnostics: Diagnostic[]; report: Report } {
  const diagnostics: Diagnostic[] = [];
  const report: Report = (node, message, code = 'TS-E080', start, end) => {
    const s = start ?? node.getStart();
    const e = end ?? node.getEnd();
    const a = sf.compilerNode.getLineAndCharacterOfPosition(s);
    const b = sf.compilerNode.getLineAndCharacterOfPosition(e);
    diagnostics.push({
      file: fileName,
      range: { start: { line: a.line, column: a.character }, end: { line: b.line, column: b.character } },
      severity: 'error',
      code,
      message,
    });
  };
  return { diagnostics, report };
}

/** An interface or type alias: registered as a struct by tsType; generics and aliases of interfaces refused. */
function checkTypeDeclaration(emitter: Emitter, st: InterfaceDeclaration | TypeAliasDeclaration): void {
  if (st.getTypeParameters().length > 0)
    throw new Unsupported(st.getNameNode(), 'generic types are not in the subset');
  const t = emitter.tsType(st.getType(), st.getNameNode(), st.getName());
  if (Node.isTypeAliasDeclaration(st) && t.kind === 'struct' && t.name !== st.getName()) {
    throw new Unsupported(
      st.getNameNode(),
      'an alias of another interface is not in the subset: use the interface',
    );
  }
}

/** A function: its prototype, its signature for the step's wiring, and its body. */
function compileFunction(
  emitter: Emitter,
  st: FunctionDeclaration,
  onError: (e: Unsupported) => void,
  out: ModuleParts,
): void {
  const sig = emitter.signature(st);
  out.prototypes.push(`${emitter.prototype(sig)};`);
  out.functions.set(sig.name, {
    name: sig.name,
    cppName: cppName(sig.name),
    params: sig.params.map((p) => ({ name: p.name, type: p.type })),
    returns: sig.ret,
    exported: st.isExported(),
  });
  out.bodies.push(emitter.function(st, onError));
}

/** Module-level constants: only immutable values, since every request shares them. */
function compileConstants(
  emitter: Emitter,
  st: VariableStatement,
  constants: Set<string>,
  out: ModuleParts,
): void {
  if (st.getDeclarationKind() !== 'const') {
    throw new Unsupported(
      st,
      'module-level let/var would be state shared by every request: use const, or keep state in the stream state a hook receives',
    );
  }
  for (const d of st.getDeclarations()) {
    const name = d.getNameNode();
    if (!Node.isIdentifier(name)) throw new Unsupported(name, 'destructuring is not in the subset');
    const t = emitter.tsType(d.getType(), d, d.getName());
    const mutable = (x: TsType): boolean =>
      (x.kind === 'array' && (!x.readonly || mutable(x.element))) ||
      x.kind === 'typed' ||
      x.kind === 'map' ||
      x.kind === 'set' ||
      x.kind === 'struct';
    if (mutable(t)) {
      throw new Unsupported(
        d,
        'a module-level constant must be a string, number, boolean or readonly array of them (requests must not share mutable values): annotate it `readonly string[]`, or build the value inside the function',
      );
    }
    const init = d.getInitializer();
    if (!init) throw new Unsupported(d, 'a constant needs a value');
    constants.add(d.getName());
    out.constantLines.push(
      `static const ${cppType(t)} ${cppName(d.getName())} = ${emitter.expr(init).code};`,
    );
  }
}

/** Any other top-level statement: where to report it and what to use instead. */
function rejectedStatement(st: Statement): [Node, string] {
  if (Node.isImportDeclaration(st))
    return [st, 'imports are not in the subset: a step or hook is one self-contained module'];
  if (Node.isExportDeclaration(st) || Node.isExportAssignment(st))
    return [st, 'export the declarations themselves (export function f…)'];
  if (Node.isClassDeclaration(st))
    return [
      st.getNameNode() ?? st,
      'classes are not in the subset: use an interface for the data and functions for the behaviour',
    ];
  if (Node.isEnumDeclaration(st))
    return [st.getNameNode(), 'enums are not in the subset: use a union of string literals'];
  return [
    st,
    'only functions, interfaces, type aliases and constants are in the subset at the top level of a module',
  ];
}

/** The module's structs, declared first so that they may refer to each other. */
function structDefinitions(structs: Map<string, StructField[]>): string[] {
  const lines: string[] = [];
  for (const name of structs.keys()) lines.push(`struct ${cppName(name)};`);
  for (const [name, fields] of structs) {
    lines.push(`struct ${cppName(name)} {`);
    for (const f of fields) lines.push(`  ${cppType(f.type)} ${cppName(f.name)};`);
    lines.push('};');
  }
  return lines;
}

/** A jsonWriteObject overload per struct, fields in declaration order. */
function jsonWriters(structs: Map<string, StructField[]>): string[] {
  const lines: string[] = [];
  for (const [name, fields] of structs) {
    lines.push(`inline void jsonWriteObject(tsrt::Str& out, const ${cppName(name)}& o) {`);
    lines.push(`  out += u"{";`);
    fields.forEach((f, i) => {
      const key = JSON.stringify(f.name);
      lines.push(`  out += ${cppU16(`${i ? ',' : ''}${key}:`)};`);
      lines.push(`  tsrt::jsonWrite(out, o.${cppName(f.name)});`);
    });
    lines.push(`  out += u"}";`);
    lines.push('}');
  }
  return lines;
}

function isTypeDeclaration(n: Node): boolean {
  return Node.isInterfaceDeclaration(n) || Node.isTypeAliasDeclaration(n);
}

function cppU16(s: string): string {
  // Field names are identifiers the checker accepted; JSON.stringify escaped them already.
  return `u${JSON.stringify(s)}`;
}
