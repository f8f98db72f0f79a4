/**
 * TypeScript functions → C++ over the runtime in `backends/tsrt/include/triton_studio/ts_runtime.h`
 * (one header per built-in table beside it). The `Emitter` holds what one function's translation
 * shares — the lines written so far, their depth, fresh temporaries, the module's structs and
 * functions — and the checks every construct uses (types, conversions, arguments, callbacks);
 * statements.ts, expressions.ts and operators.ts translate the constructs, tscompile/builtins/ the
 * standard library's calls. Anything outside the documented subset (docs/HOOKS.md) throws
 * `Unsupported` at its node with what to write instead; the module compiler turns it into a
 * diagnostic and goes on with the next statement.
 */
import type {
  ArrowFunction,
  Block,
  CallExpression,
  Expression,
  FunctionDeclaration,
  NewExpression,
  Statement,
  Type,
} from 'ts-morph';
import { Node } from '../tsMorph.js';
import { cppName } from '../cppText.js';
import { NUMBER, cppType, typeName, type StructField, type TsType } from '../types.js';
import { convertType } from '../typeConversion.js';
import { expression, lvalue, type Place } from './expressions.js';
import { isAssignment } from './operators.js';
import { statement } from './statements.js';
import { endsWithReturnOrThrow, Unsupported, type Value } from './unsupported.js';

export { Unsupported, type Value } from './unsupported.js';

export class Emitter {
  private lines: string[] = [];
  depth = 1;
  private tmp = 0;

  constructor(
    readonly moduleFile: string,
    readonly structs: Map<string, StructField[]>,
    readonly moduleFunctions: Set<string>,
    private readonly moduleConstants: Set<string>,
  ) {}

  // ---- types ---------------------------------------------------------------------------------

  tsType(type: Type, node: Node, what = 'this value'): TsType {
    const r = convertType(type, this.moduleFile, this.structs);
    if (!r.ok) throw new Unsupported(node, `${what} has a type outside the compiled subset: ${r.why}`);
    return r.type;
  }

  typeOf(node: Node): TsType {
    return this.tsType(node.getType(), node);
  }

  /** A fresh number for the temporaries of one construct (tsrt_it1, tsrt_sw1…). */
  nextTemp(): number {
    return ++this.tmp;
  }

  // ---- functions -----------------------------------------------------------------------------

  signature(fn: FunctionDeclaration): {
    name: string;
    params: Array<{ name: string; type: TsType; byValue: boolean }>;
    ret: TsType;
  } {
    const name = fn.getName();
    if (!name) throw new Unsupported(fn, 'a function needs a name');
    if (fn.getTypeParameters().length > 0)
      throw new Unsupported(fn, 'generic functions are not in the subset: write one function per type');
    if (fn.isAsync() || fn.isGenerator())
      throw new Unsupported(fn, 'async functions and generators are not in the subset');
    if (fn.getOverloads().length > 0)
      throw new Unsupported(fn, 'overloads are not in the subset: give each variant its own name');
    const params = fn.getParameters().map((p) => {
      if (p.isRestParameter())
        throw new Unsupported(p, 'rest parameters are not in the subset: take an array');
      if (p.hasInitializer() || p.hasQuestionToken())
        throw new Unsupported(p, 'optional parameters are not in the subset: pass every argument');
      if (!Node.isIdentifier(p.getNameNode()))
        throw new Unsupported(
          p,
          'destructured parameters are not in the subset: take the object and read its fields',
        );
      const type = this.tsType(p.getType(), p, `parameter ${p.getName()}`);
      return { name: p.getName(), type, byValue: this.isAssigned(fn, p.getName()) };
    });
    const ret = this.tsType(
      fn.getReturnType(),
      fn.getReturnTypeNode() ?? fn.getNameNode() ?? fn,
      `the result of ${name}`,
    );
    if (ret.kind === 'optional')
      throw new Unsupported(
        fn.getReturnTypeNode() ?? fn,
        'a function may not return undefined: return a value of one type',
      );
    return { name, params, ret };
  }

  private isAssigned(scope: Node, name: string): boolean {
    return scope.getDescendants().some((d) => {
      if (Node.isBinaryExpression(d) && isAssignment(d.getOperatorToken().getKind())) {
        const l = d.getLeft();
        return Node.isIdentifier(l) && l.getText() === name;
      }
      if (Node.isPrefixUnaryExpression(d) || Node.isPostfixUnaryExpression(d)) {
        const o = d.getOperand();
        return Node.isIdentifier(o) && o.getText() === name;
      }
      return false;
    });
  }

  prototype(sig: ReturnType<Emitter['signature']>): string {
    const params = sig.params.map((p) => `${paramType(p.type, p.byValue)} ${cppName(p.name)}`).join(', ');
    return `${cppType(sig.ret)} ${cppName(sig.name)}(${params})`;
  }

  function(fn: FunctionDeclaration, onError: (e: Unsupported) => void): string {
    const sig = this.signature(fn);
    this.lines = [];
    this.depth = 1;
    // The stack and the time budget are checked as each call starts (ts_core.h).
    this.line('tsrt::enterCall();');
    const body = fn.getBody();
    if (!body || !Node.isBlock(body)) throw new Unsupported(fn, 'a function needs a body');
    this.block(body, onError);
    if (sig.ret.kind !== 'void' && !endsWithReturnOrThrow(body)) {
      // TS proved every path returns; this silences C++'s "control reaches end".
      this.line('__builtin_unreachable();');
    }
    return `${this.prototype(sig)} {\n${this.lines.join('\n')}\n}\n`;
  }

  // ---- statements ----------------------------------------------------------------------------

  line(text: string): void {
    this.lines.push(`${'  '.repeat(this.depth)}${text}`);
  }

  /** Statements one by one: an unsupported one is reported and the next one is translated. */
  statements(list: Statement[], onError: (e: Unsupported) => void): void {
    for (const s of list) {
      try {
        this.statement(s, onError);
      } catch (e) {
        if (e instanceof Unsupported) onError(e);
        else throw e;
      }
    }
  }

  block(block: Block, onError: (e: Unsupported) => void): void {
    this.statements(block.getStatements(), onError);
  }

  /** A statement as a block; `first` opens it (a loop body's budget check). */
  nested(s: Statement, onError: (e: Unsupported) => void, first?: string): void {
    this.line('{');
    this.depth++;
    if (first) this.line(first);
    if (Node.isBlock(s)) this.block(s, onError);
    else this.statement(s, onError);
    this.depth--;
    this.line('}');
  }

  statement(s: Statement, onError: (e: Unsupported) => void): void {
    statement(this, s, onError);
  }

  // ---- expressions ---------------------------------------------------------------------------

  expr(e: Expression | Node, discarded = false): Value {
    return expression(this, e, discarded);
  }

  /** An assignable place: `code` is a C++ lvalue, or `setter(value)` for typed array elements. */
  lvalue(e: Node): Place {
    return lvalue(this, e);
  }

  /** A boolean condition; JS truthiness of other types is rejected (it differs for "", 0, NaN). */
  condition(e: Expression): string {
    const v = this.expr(e);
    if (v.type.kind !== 'boolean') {
      throw new Unsupported(
        e,
        `a condition must be a boolean, not ${typeName(v.type)}: write the comparison (s.length > 0, n !== 0)`,
      );
    }
    return v.code;
  }

  convert(v: Value, to: TsType, node: Node): string {
    if (v.type.kind === 'optional' && to.kind !== 'optional') {
      throw new Unsupported(node, 'this value may be undefined: write `?? default` or `!`');
    }
    if (cppType(v.type) !== cppType(to)) {
      throw new Unsupported(node, `a ${typeName(v.type)} cannot be used where ${typeName(to)} is expected`);
    }
    return v.code;
  }

  toStr(v: Value, node: Node): string {
    switch (v.type.kind) {
      case 'string':
        return v.code;
      case 'number':
      case 'boolean':
        return `tsrt::toStr(${v.code})`;
      case 'array':
        if (v.type.element.kind === 'struct') break;
        return `tsrt::toStr(${v.code})`;
      case 'typed':
        return `tsrt::join(${v.code})`;
      default:
        break;
    }
    throw new Unsupported(
      node,
      `a ${typeName(v.type)} has no string form in the subset (JS would print [object Object]): build the text from its fields`,
    );
  }

  // ---- calls ---------------------------------------------------------------------------------

  args(c: CallExpression | NewExpression): Expression[] {
    const args = (c.getArguments() as Expression[]) ?? [];
    for (const a of args)
      if (Node.isSpreadElement(a)) throw new Unsupported(a, 'spread arguments are not in the subset');
    return args;
  }

  argAs(a: Expression | undefined, type: TsType, at: Node): string {
    if (!a) throw new Unsupported(at, 'an argument is missing');
    return this.convert(this.expr(a), type, a);
  }

  /** An arrow function passed to an array method, as a C++ lambda taking (item, index) or more. */
  callback(a: Expression | undefined, at: Node, arity: number): { code: string; ret: TsType } {
    if (!a || !Node.isArrowFunction(a))
      throw new Unsupported(a ?? at, 'pass an arrow function here: xs.map((x) => …)');
    return this.lambda(a, arity);
  }

  private lambda(fn: ArrowFunction, arity: number): { code: string; ret: TsType } {
    if (fn.isAsync()) throw new Unsupported(fn, 'async arrow functions are not in the subset');
    const params = fn.getParameters();
    if (params.length > arity)
      throw new Unsupported(params[arity]!, `this callback gets ${arity} argument(s) in the subset`);
    const sig = fn.getSignature();
    const ret = this.tsType(sig.getReturnType(), fn, 'the callback result');
    const cppParams: string[] = [];
    const callSig = fn.getContextualType()?.getCallSignatures()[0];
    for (let i = 0; i < arity; i++) {
      const p = params[i];
      if (p) {
        if (!Node.isIdentifier(p.getNameNode()))
          throw new Unsupported(p, 'destructured parameters are not in the subset');
        if (p.hasInitializer() || p.isRestParameter())
          throw new Unsupported(p, 'default and rest parameters are not in the subset');
        const pt = this.tsType(p.getType(), p, `parameter ${p.getName()}`);
        cppParams.push(`${cppType(pt)} ${cppName(p.getName())}`);
      } else {
        const ctxParam = callSig?.getParameters()[i];
        const pt = ctxParam ? this.tsType(ctxParam.getTypeAtLocation(fn), fn) : NUMBER;
        cppParams.push(`${cppType(pt)}`);
      }
    }
    const body = fn.getBody();
    const head = `[&](${cppParams.join(', ')}) -> ${cppType(ret)}`;
    if (!Node.isBlock(body)) {
      const v = this.expr(body as Expression);
      return {
        code: `${head} { return ${ret.kind === 'void' ? v.code : this.convert(v, ret, body)}; }`,
        ret,
      };
    }
    const saved = this.lines;
    const savedDepth = this.depth;
    this.lines = [];
    this.depth = savedDepth + 1;
    const errors: Unsupported[] = [];
    this.block(body, (e) => errors.push(e));
    if (errors.length) throw errors[0]!;
    if (ret.kind !== 'void' && !endsWithReturnOrThrow(body)) this.line('__builtin_unreachable();');
    const inner = this.lines.join('\n');
    this.lines = saved;
    this.depth = savedDepth;
    return { code: `${head} {\n${inner}\n${'  '.repeat(savedDepth)}}`, ret };
  }
}

function paramType(t: TsType, byValue: boolean): string {
  const cpp = cppType(t);
  return byValue || t.kind === 'number' || t.kind === 'boolean' ? cpp : `const ${cpp}&`;
}
