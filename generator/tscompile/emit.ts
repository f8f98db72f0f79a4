/**
 * TypeScript statements and expressions → C++ over the runtime in
 * `backends/tsrt/include/triton_studio/ts_runtime.h`. Anything outside the documented subset
 * (docs/HOOKS.md) throws `Unsupported` at its node with what to write instead; the module
 * compiler turns it into a diagnostic and goes on with the next statement.
 */
import type {
  ArrowFunction,
  Block,
  CallExpression,
  Expression,
  FunctionDeclaration,
  Statement,
  Type,
} from 'ts-morph';
import { Node, SyntaxKind } from './tsMorph.js';
import { cppName, cppNumberLiteral, cppStringLiteral } from './cppText.js';
import { BOOLEAN, NUMBER, STRING, cppType, typeName, type StructField, type TsType } from './types.js';
import { convertType } from './typeConversion.js';

export class Unsupported extends Error {
  constructor(
    readonly node: Node,
    message: string,
  ) {
    super(message);
  }
}

interface Value {
  code: string;
  type: TsType;
}

const MATH_UNARY: Record<string, string> = {
  floor: 'std::floor',
  ceil: 'std::ceil',
  trunc: 'std::trunc',
  abs: 'std::fabs',
  sqrt: 'std::sqrt',
  exp: 'tsrt::mathExp',
  round: 'tsrt::mathRound',
  sign: 'tsrt::mathSign',
  fround: 'tsrt::fround',
};
const MATH_INEXACT = new Set([
  'log',
  'log2',
  'log10',
  'log1p',
  'expm1',
  'pow',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'atan2',
  'sinh',
  'cosh',
  'tanh',
  'asinh',
  'acosh',
  'atanh',
  'cbrt',
  'hypot',
]);

export class Emitter {
  private lines: string[] = [];
  private depth = 1;
  private tmp = 0;

  constructor(
    private readonly moduleFile: string,
    readonly structs: Map<string, StructField[]>,
    private readonly moduleFunctions: Set<string>,
    private readonly moduleConstants: Set<string>,
  ) {}

  // ---- types ---------------------------------------------------------------------------------

  tsType(type: Type, node: Node, what = 'this value'): TsType {
    const r = convertType(type, this.moduleFile, this.structs);
    if (!r.ok) throw new Unsupported(node, `${what} has a type outside the compiled subset: ${r.why}`);
    return r.type;
  }

  private typeOf(node: Node): TsType {
    return this.tsType(node.getType(), node);
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

  private line(text: string): void {
    this.lines.push(`${'  '.repeat(this.depth)}${text}`);
  }

  private block(block: Block, onError: (e: Unsupported) => void): void {
    for (const s of block.getStatements()) {
      try {
        this.statement(s, onError);
      } catch (e) {
        if (e instanceof Unsupported) onError(e);
        else throw e;
      }
    }
  }

  private nested(s: Statement, onError: (e: Unsupported) => void): void {
    this.line('{');
    this.depth++;
    if (Node.isBlock(s)) this.block(s, onError);
    else this.statement(s, onError);
    this.depth--;
    this.line('}');
  }

  private statement(s: Statement, onError: (e: Unsupported) => void): void {
    if (Node.isBlock(s)) return this.nested(s, onError);
    if (Node.isEmptyStatement(s)) return;
    if (Node.isExpressionStatement(s)) {
      const e = s.getExpression();
      const v = this.expr(e, true);
      this.line(`${v.type.kind === 'optional' ? `(void)(${v.code})` : v.code};`);
      return;
    }
    if (Node.isVariableStatement(s)) {
      const list = s.getDeclarationList();
      if (
        list.getFlags() & 0 ||
        !(
          list.getDeclarationKindKeywords()[0]?.getText() === 'let' ||
          list.getDeclarationKindKeywords()[0]?.getText() === 'const'
        )
      ) {
        throw new Unsupported(s, '`var` is not in the subset: use let or const');
      }
      for (const d of list.getDeclarations()) {
        const nameNode = d.getNameNode();
        if (!Node.isIdentifier(nameNode))
          throw new Unsupported(nameNode, 'destructuring is not in the subset: read the fields one by one');
        const init = d.getInitializer();
        const initValue = init && this.expr(init); // first: its own errors are the precise ones
        const type = this.tsType(d.getType(), d, `variable ${d.getName()}`);
        if (type.kind === 'optional') {
          throw new Unsupported(
            d,
            `${d.getName()} may be undefined: write \`?? default\` or \`!\` where the value is produced`,
          );
        }
        const value = init && initValue ? this.convert(initValue, type, init) : `${cppType(type)}{}`;
        this.line(`${cppType(type)} ${cppName(d.getName())} = ${value};`);
      }
      return;
    }
    if (Node.isReturnStatement(s)) {
      const e = s.getExpression();
      if (!e) return this.line('return;');
      const fn = s.getFirstAncestor((a) => Node.isFunctionDeclaration(a) || Node.isArrowFunction(a));
      const expected =
        fn && (Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn))
          ? this.tsType(fn.getReturnType(), fn)
          : this.typeOf(e);
      this.line(`return ${this.convert(this.expr(e), expected, e)};`);
      return;
    }
    if (Node.isIfStatement(s)) {
      this.line(`if (${this.condition(s.getExpression())})`);
      this.nested(s.getThenStatement(), onError);
      const other = s.getElseStatement();
      if (other) {
        this.line('else');
        this.nested(other, onError);
      }
      return;
    }
    if (Node.isWhileStatement(s)) {
      this.line(`while (${this.condition(s.getExpression())})`);
      this.nested(s.getStatement(), onError);
      return;
    }
    if (Node.isDoStatement(s)) {
      this.line('do');
      this.nested(s.getStatement(), onError);
      this.line(`while (${this.condition(s.getExpression())});`);
      return;
    }
    if (Node.isForStatement(s)) {
      this.line('{');
      this.depth++;
      const init = s.getInitializer();
      if (init && Node.isVariableDeclarationList(init)) {
        if (init.getDeclarationKindKeywords()[0]?.getText() === 'var')
          throw new Unsupported(init, '`var` is not in the subset: use let');
        for (const d of init.getDeclarations()) {
          if (!Node.isIdentifier(d.getNameNode()))
            throw new Unsupported(d, 'destructuring is not in the subset');
          const type = this.tsType(d.getType(), d, `variable ${d.getName()}`);
          const i = d.getInitializer();
          this.line(
            `${cppType(type)} ${cppName(d.getName())} = ${i ? this.convert(this.expr(i), type, i) : `${cppType(type)}{}`};`,
          );
        }
      } else if (init) {
        this.line(`${this.expr(init as Expression, true).code};`);
      }
      const cond = s.getCondition();
      const inc = s.getIncrementor();
      this.line(`for (; ${cond ? this.condition(cond) : ''}; ${inc ? this.expr(inc, true).code : ''})`);
      this.nested(s.getStatement(), onError);
      this.depth--;
      this.line('}');
      return;
    }
    if (Node.isForOfStatement(s)) return this.forOf(s, onError);
    if (Node.isSwitchStatement(s)) return this.switchStatement(s, onError);
    if (Node.isBreakStatement(s) || Node.isContinueStatement(s)) {
      if (s.getLabel())
        throw new Unsupported(s, 'labelled break/continue is not in the subset: use a flag or a function');
      this.line(Node.isBreakStatement(s) ? 'break;' : 'continue;');
      return;
    }
    if (Node.isThrowStatement(s)) {
      const e = s.getExpression();
      if (Node.isNewExpression(e)) {
        const ctor = e.getExpression().getText();
        const fn = {
          Error: 'tsrt::throwError',
          RangeError: 'tsrt::throwRangeError',
          TypeError: 'tsrt::throwTypeError',
        }[ctor];
        const args = e.getArguments();
        if (fn && args.length <= 1) {
          const msg = args[0]
            ? this.convert(this.expr(args[0] as Expression), STRING, args[0]!)
            : 'tsrt::Str()';
          this.line(`${fn}(${msg});`);
          return;
        }
      }
      throw new Unsupported(e, 'only `throw new Error(message)` (or RangeError/TypeError) is in the subset');
    }
    if (Node.isFunctionDeclaration(s))
      throw new Unsupported(
        s,
        'nested functions are not in the subset: declare the function at the top level of the module',
      );
    if (Node.isTryStatement(s))
      throw new Unsupported(
        s,
        'try/catch is not in the subset: check the condition before the call that would throw',
      );
    if (Node.isForInStatement(s))
      throw new Unsupported(s, 'for-in is not in the subset: use for-of over an array or a Map');
    if (Node.isLabeledStatement(s)) throw new Unsupported(s, 'labels are not in the subset');
    throw new Unsupported(s, `this statement (${s.getKindName()}) is not in the subset`);
  }

  private forOf(s: import('ts-morph').ForOfStatement, onError: (e: Unsupported) => void): void {
    if (s.isAwaited()) throw new Unsupported(s, 'for await is not in the subset');
    const init = s.getInitializer();
    if (!Node.isVariableDeclarationList(init))
      throw new Unsupported(init, 'declare the loop variable in the loop: for (const x of xs)');
    const decl = init.getDeclarations()[0]!;
    const nameNode = decl.getNameNode();
    const iterated = s.getExpression();
    const t = `tsrt_it${++this.tmp}`;
    const i = `tsrt_i${this.tmp}`;
    // m.keys() / m.values() / m.entries() / s.values(): walk the live entries.
    let collection: Value;
    let mode: 'keys' | 'values' | 'entries' | 'plain' = 'plain';
    if (
      Node.isCallExpression(iterated) &&
      Node.isPropertyAccessExpression(iterated.getExpression()) &&
      iterated.getArguments().length === 0
    ) {
      const pa = iterated.getExpression() as import('ts-morph').PropertyAccessExpression;
      const recv = this.typeOf(pa.getExpression());
      const m = pa.getName();
      if (
        (recv.kind === 'map' || recv.kind === 'set') &&
        (m === 'keys' || m === 'values' || m === 'entries')
      ) {
        collection = this.expr(pa.getExpression());
        mode = recv.kind === 'set' && m === 'entries' ? 'plain' : m;
        if (recv.kind === 'set' && m === 'entries')
          throw new Unsupported(iterated, 'Set.entries() is not in the subset: iterate the set');
      } else {
        collection = this.expr(iterated);
      }
    } else {
      collection = this.expr(iterated);
    }
    const ct = collection.type;
    this.line('{');
    this.depth++;
    this.line(
      `auto ${t} = ${ct.kind === 'string' ? `tsrt::codePoints(${collection.code})` : collection.code};`,
    );
    const bindOne = (valueCode: string, valueType: TsType): void => {
      if (!Node.isIdentifier(nameNode))
        throw new Unsupported(
          nameNode,
          'destructuring is only in the subset for Map entries: for (const [key, value] of map)',
        );
      this.line(`${cppType(valueType)} ${cppName(nameNode.getText())} = ${valueCode};`);
    };
    if (ct.kind === 'array' || ct.kind === 'string') {
      const elem = ct.kind === 'string' ? STRING : ct.element;
      this.line(`for (size_t ${i} = 0; ${i} < ${t}.size(); ++${i}) {`);
      this.depth++;
      bindOne(`(*${t}.p)[${i}]`, elem);
    } else if (ct.kind === 'typed') {
      this.line(`for (size_t ${i} = 0; ${i} < ${t}.size(); ++${i}) {`);
      this.depth++;
      bindOne(`static_cast<double>((*${t}.p)[${i}])`, NUMBER);
    } else if (ct.kind === 'map' || ct.kind === 'set') {
      this.line(`for (size_t ${i} = 0; ${i} < ${t}.p->entries.size(); ++${i}) {`);
      this.depth++;
      this.line(`if (!${t}.p->entries[${i}]) continue;`);
      const entry = `${t}.p->entries[${i}]`;
      if (ct.kind === 'set') {
        bindOne(`${entry}->first`, ct.element);
      } else if (mode === 'keys') {
        bindOne(`${entry}->first`, ct.key);
      } else if (mode === 'values') {
        bindOne(`${entry}->second`, ct.value);
      } else {
        if (!Node.isArrayBindingPattern(nameNode) || nameNode.getElements().length !== 2) {
          throw new Unsupported(nameNode, 'iterate a Map as for (const [key, value] of map)');
        }
        const [k, v] = nameNode.getElements();
        for (const [el, code, type] of [
          [k, `${entry}->first`, ct.key],
          [v, `${entry}->second`, ct.value],
        ] as const) {
          if (Node.isOmittedExpression(el!)) continue;
          const n = el!.getNameNode();
          if (!Node.isIdentifier(n)) throw new Unsupported(n, 'nested destructuring is not in the subset');
          this.line(`${cppType(type)} ${cppName(n.getText())} = ${code};`);
        }
      }
    } else {
      throw new Unsupported(
        iterated,
        `for-of over ${typeName(ct)} is not in the subset: iterate an array, a string, a typed array, a Map or a Set`,
      );
    }
    const body = s.getStatement();
    if (Node.isBlock(body)) this.block(body, onError);
    else this.statement(body, onError);
    this.depth--;
    this.line('}');
    this.depth--;
    this.line('}');
  }

  private switchStatement(s: import('ts-morph').SwitchStatement, onError: (e: Unsupported) => void): void {
    const d = this.expr(s.getExpression());
    if (d.type.kind !== 'number' && d.type.kind !== 'string') {
      throw new Unsupported(s.getExpression(), 'switch is in the subset on numbers and strings only');
    }
    const n = ++this.tmp;
    const clauses = s.getCaseBlock().getClauses();
    this.line('{');
    this.depth++;
    this.line(`${cppType(d.type)} tsrt_sw${n} = ${d.code};`);
    this.line(`int tsrt_case${n} = -1;`);
    // JS compares case by case with ===, then falls through in source order: pick the clause
    // index first, then a C++ switch over indices keeps fallthrough and break as they are.
    let first = true;
    clauses.forEach((c, index) => {
      if (Node.isCaseClause(c)) {
        const v = this.convert(this.expr(c.getExpression()), d.type, c.getExpression());
        this.line(`${first ? '' : 'else '}if (tsrt_sw${n} == ${v}) tsrt_case${n} = ${index};`);
        first = false;
      }
    });
    const def = clauses.findIndex((c) => Node.isDefaultClause(c));
    if (def >= 0) this.line(`${first ? '' : 'else '}tsrt_case${n} = ${def};`);
    this.line(`switch (tsrt_case${n}) {`);
    clauses.forEach((c, index) => {
      this.line(`case ${index}: {`);
      this.depth++;
      for (const st of c.getStatements()) {
        try {
          this.statement(st, onError);
        } catch (e) {
          if (e instanceof Unsupported) onError(e);
          else throw e;
        }
      }
      this.depth--;
      this.line('}');
      this.line('[[fallthrough]];');
    });
    this.line('default: break;');
    this.line('}');
    this.depth--;
    this.line('}');
  }

  // ---- expressions ---------------------------------------------------------------------------

  /** A boolean condition; JS truthiness of other types is rejected (it differs for "", 0, NaN). */
  private condition(e: Expression): string {
    const v = this.expr(e);
    if (v.type.kind !== 'boolean') {
      throw new Unsupported(
        e,
        `a condition must be a boolean, not ${typeName(v.type)}: write the comparison (s.length > 0, n !== 0)`,
      );
    }
    return v.code;
  }

  private convert(v: Value, to: TsType, node: Node): string {
    if (v.type.kind === 'optional' && to.kind !== 'optional') {
      throw new Unsupported(node, 'this value may be undefined: write `?? default` or `!`');
    }
    if (cppType(v.type) !== cppType(to)) {
      throw new Unsupported(node, `a ${typeName(v.type)} cannot be used where ${typeName(to)} is expected`);
    }
    return v.code;
  }

  private toStr(v: Value, node: Node): string {
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

  expr(e: Expression | Node, discarded = false): Value {
    if (Node.isParenthesizedExpression(e)) {
      const v = this.expr(e.getExpression());
      return { code: `(${v.code})`, type: v.type };
    }
    // The checker's own text (separators removed, 0x… kept): ts-morph's getLiteralValue misreads 1e-10.
    if (Node.isNumericLiteral(e))
      return { code: cppNumberLiteral(Number(e.compilerNode.text)), type: NUMBER };
    if (Node.isStringLiteral(e) || Node.isNoSubstitutionTemplateLiteral(e))
      return { code: cppStringLiteral(e.getLiteralValue()), type: STRING };
    if (Node.isTrueLiteral(e) || Node.isFalseLiteral(e)) return { code: e.getText(), type: BOOLEAN };
    if (Node.isTemplateExpression(e)) {
      const parts: string[] = [];
      const head = e.getHead().getLiteralText();
      if (head) parts.push(cppStringLiteral(head));
      for (const span of e.getTemplateSpans()) {
        const inner = span.getExpression();
        parts.push(this.toStr(this.expr(inner), inner));
        const lit = span.getLiteral().getLiteralText();
        if (lit) parts.push(cppStringLiteral(lit));
      }
      if (parts.length === 1) parts.unshift('tsrt::Str()');
      return { code: `(${parts.join(' + ')})`, type: STRING };
    }
    if (Node.isIdentifier(e)) return this.identifier(e);
    if (Node.isBinaryExpression(e)) return this.binary(e, discarded);
    if (Node.isPrefixUnaryExpression(e)) return this.prefix(e);
    if (Node.isPostfixUnaryExpression(e)) {
      const target = this.lvalue(e.getOperand());
      if (target.type.kind !== 'number')
        throw new Unsupported(e, '++ and -- are in the subset on numbers only');
      const op = e.getOperatorToken() === SyntaxKind.PlusPlusToken ? '++' : '--';
      if (target.setter)
        throw new Unsupported(
          e,
          `${op} on a typed array element is not in the subset: write a[i] = a[i] ${op[0]} 1`,
        );
      return { code: `${target.code}${op}`, type: NUMBER };
    }
    if (Node.isConditionalExpression(e)) {
      const c = this.condition(e.getCondition());
      const t = this.expr(e.getWhenTrue());
      const f = this.expr(e.getWhenFalse());
      const type = this.tsType(e.getType(), e);
      return {
        code: `(${c} ? ${this.convert(t, type, e.getWhenTrue())} : ${this.convert(f, type, e.getWhenFalse())})`,
        type,
      };
    }
    if (Node.isPropertyAccessExpression(e)) return this.property(e);
    if (Node.isElementAccessExpression(e)) {
      const target = this.lvalue(e);
      return { code: target.read, type: target.type };
    }
    if (Node.isCallExpression(e)) return this.call(e);
    if (Node.isNewExpression(e)) return this.newExpression(e);
    if (Node.isArrayLiteralExpression(e)) {
      const ctx = e.getContextualType();
      const fromContext = ctx && convertType(ctx, this.moduleFile, this.structs);
      const type =
        fromContext?.ok && fromContext.type.kind === 'array'
          ? fromContext.type
          : this.tsType(e.getType(), e, 'this array');
      if (type.kind !== 'array')
        throw new Unsupported(e, `an array literal used as ${typeName(type)} is not in the subset`);
      const items = e.getElements().map((el) => {
        if (Node.isSpreadElement(el))
          throw new Unsupported(el, 'spread is not in the subset: use concat or push');
        if (Node.isOmittedExpression(el))
          throw new Unsupported(el, 'arrays with holes are not in the subset');
        return this.convert(this.expr(el), type.element, el);
      });
      return { code: `${cppType(type)}{${items.join(', ')}}`, type };
    }
    if (Node.isObjectLiteralExpression(e)) return this.objectLiteral(e);
    if (Node.isAsExpression(e) || Node.isTypeAssertion(e) || Node.isSatisfiesExpression(e)) {
      const v = this.expr(e.getExpression());
      const target = this.typeOf(e);
      if (cppType(target) !== cppType(v.type)) {
        throw new Unsupported(
          e,
          `a type assertion from ${typeName(v.type)} to ${typeName(target)} is not in the subset (there is no conversion at run time)`,
        );
      }
      return { code: v.code, type: target };
    }
    if (Node.isNonNullExpression(e)) {
      const v = this.expr(e.getExpression());
      if (v.type.kind !== 'optional') return v;
      return {
        code: `tsrt::unwrap(${v.code}, u${JSON.stringify(e.getExpression().getText().slice(0, 60))})`,
        type: v.type.inner,
      };
    }
    if (Node.isArrowFunction(e) || Node.isFunctionExpression(e)) {
      throw new Unsupported(
        e,
        'function values are in the subset only as the callback of an array method (map, filter, sort…)',
      );
    }
    if (Node.isRegularExpressionLiteral(e)) {
      throw new Unsupported(
        e,
        'regular expressions are not in the subset: use indexOf, includes, split, replaceAll with strings',
      );
    }
    if (e.getKind() === SyntaxKind.NullKeyword || (Node.isIdentifier(e) && e.getText() === 'undefined')) {
      throw new Unsupported(
        e,
        'null and undefined are not in the subset: use a value of the type ("" or -1)',
      );
    }
    if (Node.isTypeOfExpression(e))
      throw new Unsupported(e, 'typeof is not in the subset: every value has one static type');
    if (e.getKind() === SyntaxKind.ThisKeyword)
      throw new Unsupported(e, 'this and classes are not in the subset: use interfaces and functions');
    throw new Unsupported(e, `this expression (${e.getKindName()}) is not in the subset`);
  }

  private identifier(e: import('ts-morph').Identifier): Value {
    const name = e.getText();
    if (name === 'undefined')
      throw new Unsupported(e, 'undefined is not in the subset: use a value of the type ("" or -1)');
    if (name === 'NaN' || name === 'Infinity')
      return { code: name === 'NaN' ? 'tsrt::kNaN' : 'tsrt::kInf', type: NUMBER };
    const type = this.typeOf(e);
    return { code: cppName(name), type };
  }

  private objectLiteral(e: import('ts-morph').ObjectLiteralExpression): Value {
    const type = this.tsType(e.getContextualType() ?? e.getType(), e, 'this object');
    if (type.kind !== 'struct')
      throw new Unsupported(
        e,
        `an object literal used as ${typeName(type)}: declare an interface and annotate the value with it`,
      );
    const fields = this.structs.get(type.name)!;
    const props = e.getProperties();
    const values = new Map<string, { node: Node; value: Value }>();
    const order: string[] = [];
    for (const p of props) {
      if (Node.isPropertyAssignment(p)) {
        const init = p.getInitializerOrThrow();
        order.push(p.getName());
        values.set(p.getName(), { node: init, value: this.expr(init) });
      } else if (Node.isShorthandPropertyAssignment(p)) {
        order.push(p.getName());
        values.set(p.getName(), { node: p, value: this.identifier(p.getNameNode()) });
      } else {
        throw new Unsupported(
          p,
          'only `name: value` properties are in the subset (no spread, methods or getters)',
        );
      }
    }
    // JSON.stringify prints properties in creation order; C++ structs print in declaration order.
    const declared = fields.map((f) => f.name);
    if (order.join('\u0000') !== declared.join('\u0000')) {
      throw new Unsupported(
        e,
        `list the properties in the order ${type.name} declares them: { ${declared.join(', ')} }`,
      );
    }
    const inits = fields.map((f) => {
      const v = values.get(f.name)!;
      return this.convert(v.value, f.type, v.node);
    });
    return { code: `std::make_shared<${type.name}>(${type.name}{${inits.join(', ')}})`, type };
  }

  /** An assignable place: `code` is a C++ lvalue, or `setter(value)` for typed array elements. */
  private lvalue(e: Node): { code: string; read: string; type: TsType; setter?: (v: string) => string } {
    if (Node.isParenthesizedExpression(e)) return this.lvalue(e.getExpression());
    if (Node.isIdentifier(e)) {
      const v = this.identifier(e);
      return { code: v.code, read: v.code, type: v.type };
    }
    if (Node.isPropertyAccessExpression(e)) {
      const obj = this.expr(e.getExpression());
      if (obj.type.kind === 'struct') {
        const f = this.structs.get(obj.type.name)!.find((x) => x.name === e.getName());
        if (!f) throw new Unsupported(e, `${obj.type.name} has no field ${e.getName()}`);
        const code = `${obj.code}->${cppName(e.getName())}`;
        return { code, read: code, type: f.type };
      }
      throw new Unsupported(e, `assigning to .${e.getName()} is not in the subset`);
    }
    if (Node.isElementAccessExpression(e)) {
      const obj = this.expr(e.getExpression());
      const arg = e.getArgumentExpression();
      if (!arg) throw new Unsupported(e, 'an index is missing');
      const idx = this.expr(arg);
      if (idx.type.kind !== 'number')
        throw new Unsupported(
          arg,
          'indexes must be numbers (objects are not dictionaries in the subset: use a Map)',
        );
      if (obj.type.kind === 'array') {
        const writable = e.getParentIfKind(SyntaxKind.BinaryExpression)?.getLeft() === e;
        return {
          code: writable ? `${obj.code}.put(${idx.code})` : `${obj.code}.at(${idx.code})`,
          read: `${obj.code}.at(${idx.code})`,
          type: obj.type.element,
        };
      }
      if (obj.type.kind === 'typed') {
        return {
          code: '',
          read: `${obj.code}.get(${idx.code})`,
          type: NUMBER,
          setter: (v) => `${obj.code}.set(${idx.code}, ${v})`,
        };
      }
      if (obj.type.kind === 'string') {
        return {
          code: '',
          read: `tsrt::strIndex(${obj.code}, ${idx.code})`,
          type: STRING,
          setter: () => {
            throw new Unsupported(e, 'strings cannot be changed in place');
          },
        };
      }
      throw new Unsupported(e, `indexing a ${typeName(obj.type)} is not in the subset`);
    }
    throw new Unsupported(e, 'this cannot be assigned to');
  }

  private binary(e: import('ts-morph').BinaryExpression, discarded: boolean): Value {
    const op = e.getOperatorToken().getKind();
    const leftNode = e.getLeft();
    const rightNode = e.getRight();
    if (isAssignment(op)) {
      const target = this.lvalue(leftNode);
      const r = this.expr(rightNode);
      let value: string;
      if (op === SyntaxKind.EqualsToken) {
        value = this.convert(r, target.type, rightNode);
      } else {
        const base = binaryOfCompound()[op];
        if (!base) throw new Unsupported(e, `${e.getOperatorToken().getText()} is not in the subset`);
        value = this.arith(base, { code: target.read, type: target.type }, r, e).code;
        if (target.type.kind === 'string' && !target.setter && base === SyntaxKind.PlusToken) {
          return { code: `(${target.code} += ${this.toStr(r, rightNode)})`, type: STRING };
        }
      }
      if (target.setter) return { code: target.setter(value), type: target.type };
      return {
        code: discarded ? `${target.code} = ${value}` : `(${target.code} = ${value})`,
        type: target.type,
      };
    }
    if (op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken) {
      const l = this.condition(leftNode);
      const r = this.condition(rightNode);
      return {
        code: `(${l} ${op === SyntaxKind.AmpersandAmpersandToken ? '&&' : '||'} ${r})`,
        type: BOOLEAN,
      };
    }
    if (op === SyntaxKind.QuestionQuestionToken) {
      const l = this.expr(leftNode);
      if (l.type.kind !== 'optional')
        throw new Unsupported(
          leftNode,
          '?? is in the subset after a call that may return undefined (pop, find, Map.get)',
        );
      const r = this.expr(rightNode);
      return {
        code: `tsrt::coalesce(${l.code}, [&]() { return ${this.convert(r, l.type.inner, rightNode)}; })`,
        type: l.type.inner,
      };
    }
    if (op === SyntaxKind.EqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken) {
      throw new Unsupported(
        e.getOperatorToken(),
        `== and != convert types: write ${op === SyntaxKind.EqualsEqualsToken ? '===' : '!=='}`,
      );
    }
    const l = this.expr(leftNode);
    const r = this.expr(rightNode);
    return this.arith(op, l, r, e);
  }

  private arith(op: SyntaxKind, l: Value, r: Value, e: Node): Value {
    const num = (): void => {
      if (l.type.kind !== 'number' || r.type.kind !== 'number') {
        throw new Unsupported(
          e,
          `this operator is in the subset on numbers only (here ${typeName(l.type)} and ${typeName(r.type)})`,
        );
      }
    };
    switch (op) {
      case SyntaxKind.PlusToken:
        if (l.type.kind === 'string' || r.type.kind === 'string') {
          return { code: `(${this.toStr(l, e)} + ${this.toStr(r, e)})`, type: STRING };
        }
        num();
        return { code: `(${l.code} + ${r.code})`, type: NUMBER };
      case SyntaxKind.MinusToken:
      case SyntaxKind.AsteriskToken:
      case SyntaxKind.SlashToken:
        num();
        return {
          code: `(${l.code} ${op === SyntaxKind.MinusToken ? '-' : op === SyntaxKind.AsteriskToken ? '*' : '/'} ${r.code})`,
          type: NUMBER,
        };
      case SyntaxKind.PercentToken:
        num();
        return { code: `tsrt::mod(${l.code}, ${r.code})`, type: NUMBER };
      case SyntaxKind.AsteriskAsteriskToken:
        throw new Unsupported(
          e,
          '** is not in the subset (V8 and C++ round some powers differently): multiply, e.g. x * x',
        );
      case SyntaxKind.AmpersandToken:
      case SyntaxKind.BarToken:
      case SyntaxKind.CaretToken:
      case SyntaxKind.LessThanLessThanToken:
      case SyntaxKind.GreaterThanGreaterThanToken:
      case SyntaxKind.GreaterThanGreaterThanGreaterThanToken: {
        num();
        const fn = {
          [SyntaxKind.AmpersandToken]: 'bitAnd',
          [SyntaxKind.BarToken]: 'bitOr',
          [SyntaxKind.CaretToken]: 'bitXor',
          [SyntaxKind.LessThanLessThanToken]: 'shl',
          [SyntaxKind.GreaterThanGreaterThanToken]: 'sar',
          [SyntaxKind.GreaterThanGreaterThanGreaterThanToken]: 'shr',
        }[op];
        return { code: `tsrt::${fn}(${l.code}, ${r.code})`, type: NUMBER };
      }
      case SyntaxKind.EqualsEqualsEqualsToken:
      case SyntaxKind.ExclamationEqualsEqualsToken: {
        if (l.type.kind === 'optional' || r.type.kind === 'optional')
          throw new Unsupported(e, 'comparing with undefined is not in the subset: use ?? or has()');
        if (cppType(l.type) !== cppType(r.type))
          throw new Unsupported(e, `comparing ${typeName(l.type)} with ${typeName(r.type)} is always false`);
        return {
          code: `(${l.code} ${op === SyntaxKind.EqualsEqualsEqualsToken ? '==' : '!='} ${r.code})`,
          type: BOOLEAN,
        };
      }
      case SyntaxKind.LessThanToken:
      case SyntaxKind.LessThanEqualsToken:
      case SyntaxKind.GreaterThanToken:
      case SyntaxKind.GreaterThanEqualsToken: {
        const both = (k: string): boolean => l.type.kind === k && r.type.kind === k;
        if (!both('number') && !both('string'))
          throw new Unsupported(e, 'ordering is in the subset between two numbers or two strings');
        const sym = {
          [SyntaxKind.LessThanToken]: '<',
          [SyntaxKind.LessThanEqualsToken]: '<=',
          [SyntaxKind.GreaterThanToken]: '>',
          [SyntaxKind.GreaterThanEqualsToken]: '>=',
        }[op];
        return { code: `(${l.code} ${sym} ${r.code})`, type: BOOLEAN };
      }
      case SyntaxKind.InKeyword:
      case SyntaxKind.InstanceOfKeyword:
        throw new Unsupported(
          e,
          '`in` and `instanceof` are not in the subset: every value has one static type',
        );
      case SyntaxKind.CommaToken:
        throw new Unsupported(e, 'the comma operator is not in the subset: write two statements');
      default:
        throw new Unsupported(e, 'this operator is not in the subset');
    }
  }

  private prefix(e: import('ts-morph').PrefixUnaryExpression): Value {
    const op = e.getOperatorToken();
    const operand = e.getOperand();
    if (op === SyntaxKind.PlusPlusToken || op === SyntaxKind.MinusMinusToken) {
      const target = this.lvalue(operand);
      if (target.type.kind !== 'number')
        throw new Unsupported(e, '++ and -- are in the subset on numbers only');
      if (target.setter) throw new Unsupported(e, 'write a[i] = a[i] + 1 for typed array elements');
      return { code: `(${op === SyntaxKind.PlusPlusToken ? '++' : '--'}${target.code})`, type: NUMBER };
    }
    if (op === SyntaxKind.ExclamationToken) return { code: `(!${this.condition(operand)})`, type: BOOLEAN };
    const v = this.expr(operand);
    if (v.type.kind !== 'number') {
      throw new Unsupported(
        e,
        op === SyntaxKind.PlusToken
          ? 'unary + converts types: write Number(s)'
          : 'this operator is in the subset on numbers only',
      );
    }
    if (op === SyntaxKind.MinusToken) return { code: `(-${v.code})`, type: NUMBER };
    if (op === SyntaxKind.PlusToken) return v;
    if (op === SyntaxKind.TildeToken) return { code: `tsrt::bitNot(${v.code})`, type: NUMBER };
    throw new Unsupported(e, 'this operator is not in the subset');
  }

  private property(e: import('ts-morph').PropertyAccessExpression): Value {
    if (e.hasQuestionDotToken()) throw new Unsupported(e, 'optional chaining (?.) is not in the subset');
    const objNode = e.getExpression();
    const name = e.getName();
    if (Node.isIdentifier(objNode) && isGlobal(objNode)) {
      const g = objNode.getText();
      if (
        g === 'Math' &&
        (name === 'PI' || name === 'E' || name === 'LN2' || name === 'LN10' || name === 'SQRT2')
      ) {
        return { code: cppNumberLiteral(Math[name]), type: NUMBER };
      }
      if (
        g === 'Number' &&
        [
          'MAX_SAFE_INTEGER',
          'MIN_SAFE_INTEGER',
          'EPSILON',
          'MAX_VALUE',
          'MIN_VALUE',
          'POSITIVE_INFINITY',
          'NEGATIVE_INFINITY',
          'NaN',
        ].includes(name)
      ) {
        return { code: cppNumberLiteral(Number[name as 'EPSILON']), type: NUMBER };
      }
      throw new Unsupported(e, `${g}.${name} is not in the subset`);
    }
    const obj = this.expr(objNode);
    const t = obj.type;
    if (name === 'length' && (t.kind === 'string' || t.kind === 'array' || t.kind === 'typed')) {
      return { code: `static_cast<double>(${obj.code}.size())`, type: NUMBER };
    }
    if (name === 'size' && (t.kind === 'map' || t.kind === 'set'))
      return { code: `${obj.code}.size()`, type: NUMBER };
    if (t.kind === 'struct') {
      const f = this.structs.get(t.name)!.find((x) => x.name === name);
      if (!f) throw new Unsupported(e, `${t.name} has no field ${name}`);
      return { code: `${obj.code}->${cppName(name)}`, type: f.type };
    }
    throw new Unsupported(e, `.${name} on a ${typeName(t)} is not in the subset`);
  }

  private args(c: CallExpression | import('ts-morph').NewExpression): Expression[] {
    const args = (c.getArguments() as Expression[]) ?? [];
    for (const a of args)
      if (Node.isSpreadElement(a)) throw new Unsupported(a, 'spread arguments are not in the subset');
    return args;
  }

  private argAs(a: Expression | undefined, type: TsType, at: Node): string {
    if (!a) throw new Unsupported(at, 'an argument is missing');
    return this.convert(this.expr(a), type, a);
  }

  /** An arrow function passed to an array method, as a C++ lambda taking (item, index) or more. */
  private callback(a: Expression | undefined, at: Node, arity: number): { code: string; ret: TsType } {
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
    let code: string;
    if (Node.isBlock(body)) {
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
      code = `[&](${cppParams.join(', ')}) -> ${cppType(ret)} {\n${inner}\n${'  '.repeat(savedDepth)}}`;
    } else {
      const v = this.expr(body as Expression);
      code = `[&](${cppParams.join(', ')}) -> ${cppType(ret)} { return ${ret.kind === 'void' ? v.code : this.convert(v, ret, body)}; }`;
    }
    return { code, ret };
  }

  private call(c: CallExpression): Value {
    const callee = c.getExpression();
    if (c.getTypeArguments().length > 0 && !Node.isPropertyAccessExpression(callee)) {
      throw new Unsupported(c, 'explicit type arguments on calls are not in the subset');
    }
    if (Node.isIdentifier(callee)) {
      const name = callee.getText();
      if (this.moduleFunctions.has(name) && !isGlobal(callee)) {
        const fnDecl = callee.getSymbol()?.getDeclarations()[0];
        const params = fnDecl && Node.isFunctionDeclaration(fnDecl) ? fnDecl.getParameters() : [];
        const args = this.args(c).map((a, i) =>
          this.argAs(a, this.tsType(params[i]!.getType(), params[i]!), c),
        );
        return { code: `${cppName(name)}(${args.join(', ')})`, type: this.typeOf(c) };
      }
      const args = this.args(c);
      if (name === 'Number' && args.length === 1) {
        const v = this.expr(args[0]!);
        if (v.type.kind === 'number') return v;
        if (v.type.kind === 'string') return { code: `tsrt::stringToNumber(${v.code})`, type: NUMBER };
        if (v.type.kind === 'boolean') return { code: `(${v.code} ? 1.0 : 0.0)`, type: NUMBER };
        throw new Unsupported(args[0]!, `Number() of a ${typeName(v.type)} is not in the subset`);
      }
      if (name === 'String' && args.length === 1) {
        return { code: this.toStr(this.expr(args[0]!), args[0]!), type: STRING };
      }
      if ((name === 'isNaN' || name === 'isFinite') && args.length === 1) {
        return {
          code: `std::${name === 'isNaN' ? 'isnan' : 'isfinite'}(${this.argAs(args[0], NUMBER, c)})`,
          type: BOOLEAN,
        };
      }
      if (name === 'parseInt' || name === 'parseFloat') {
        throw new Unsupported(callee, `${name} is not in the subset: use Number(s) (and Math.trunc)`);
      }
      throw new Unsupported(callee, `${name} is not a function of this module or of the subset`);
    }
    if (!Node.isPropertyAccessExpression(callee))
      throw new Unsupported(callee, 'only calls of module functions and methods are in the subset');
    if (callee.hasQuestionDotToken())
      throw new Unsupported(callee, 'optional chaining (?.) is not in the subset');
    const method = callee.getName();
    const recvNode = callee.getExpression();
    const args = this.args(c);
    if (Node.isIdentifier(recvNode) && isGlobal(recvNode))
      return this.staticCall(recvNode.getText(), method, args, c);
    const recv = this.expr(recvNode);
    switch (recv.type.kind) {
      case 'string':
        return this.stringMethod(recv, method, args, c);
      case 'array':
        return this.arrayMethod(recv, recv.type.element, method, args, c);
      case 'typed':
        return this.typedMethod(recv, method, args, c);
      case 'map':
      case 'set':
        return this.collectionMethod(recv, method, args, c);
      case 'number':
        if (method === 'toFixed') {
          return {
            code: `tsrt::toFixed(${recv.code}, ${args[0] ? this.argAs(args[0], NUMBER, c) : '0.0'})`,
            type: STRING,
          };
        }
        if (method === 'toString' && args.length === 0)
          return { code: `tsrt::toStr(${recv.code})`, type: STRING };
        break;
      case 'boolean':
        if (method === 'toString' && args.length === 0)
          return { code: `tsrt::toStr(${recv.code})`, type: STRING };
        break;
      default:
        break;
    }
    throw new Unsupported(
      callee.getNameNode(),
      `${typeName(recv.type)}.${method}(${args.length ? '…' : ''}) is not in the subset`,
    );
  }

  private staticCall(g: string, method: string, args: Expression[], c: CallExpression): Value {
    const nums = (): string[] => args.map((a) => this.argAs(a, NUMBER, c));
    if (g === 'Math') {
      if (MATH_UNARY[method] && args.length === 1)
        return { code: `${MATH_UNARY[method]}(${nums()[0]})`, type: NUMBER };
      if (method === 'max' || method === 'min')
        return {
          code: `tsrt::math${method === 'max' ? 'Max' : 'Min'}({${nums().join(', ')}})`,
          type: NUMBER,
        };
      if (MATH_INEXACT.has(method)) {
        throw new Unsupported(
          c.getExpression(),
          `Math.${method} is not in the subset: V8 and the C++ library round it differently, so results could differ from Node in the last bit`,
        );
      }
      if (method === 'random')
        throw new Unsupported(
          c.getExpression(),
          'Math.random is not in the subset: a step must give the same answer for the same input',
        );
    }
    if (
      g === 'Number' &&
      ['isInteger', 'isFinite', 'isNaN', 'isSafeInteger'].includes(method) &&
      args.length === 1
    ) {
      const v = this.expr(args[0]!);
      if (v.type.kind !== 'number') return { code: 'false', type: BOOLEAN };
      const x = v.code;
      const code = {
        isInteger: `(std::isfinite(${x}) && std::trunc(${x}) == ${x})`,
        isFinite: `std::isfinite(${x})`,
        isNaN: `std::isnan(${x})`,
        isSafeInteger: `(std::isfinite(${x}) && std::trunc(${x}) == ${x} && std::fabs(${x}) <= 9007199254740991.0)`,
      }[method as 'isNaN'];
      return { code, type: BOOLEAN };
    }
    if (g === 'String' && (method === 'fromCharCode' || method === 'fromCodePoint')) {
      return { code: `tsrt::${method}({${nums().join(', ')}})`, type: STRING };
    }
    if (g === 'JSON' && method === 'stringify') {
      if (args.length !== 1)
        throw new Unsupported(
          c,
          'JSON.stringify takes one argument in the subset (no replacer or indentation)',
        );
      const v = this.expr(args[0]!);
      this.checkJson(v.type, args[0]!);
      return { code: `tsrt::jsonStringify(${v.code})`, type: STRING };
    }
    if (g === 'JSON')
      throw new Unsupported(
        c.getExpression(),
        'JSON.parse is not in the subset: declare the values as typed inputs',
      );
    if (g === 'Array' && method === 'from' && args.length === 1) {
      const a = args[0]!;
      const type = this.typeOf(c);
      if (
        Node.isCallExpression(a) &&
        Node.isPropertyAccessExpression(a.getExpression()) &&
        a.getArguments().length === 0
      ) {
        const pa = a.getExpression() as import('ts-morph').PropertyAccessExpression;
        const recv = this.expr(pa.getExpression());
        const m = pa.getName();
        if (recv.type.kind === 'map' && (m === 'keys' || m === 'values'))
          return { code: `tsrt::map${m === 'keys' ? 'Keys' : 'Values'}(${recv.code})`, type };
        if (recv.type.kind === 'set' && (m === 'keys' || m === 'values'))
          return { code: `tsrt::setValues(${recv.code})`, type };
      }
      const v = this.expr(a);
      if (v.type.kind === 'set') return { code: `tsrt::setValues(${v.code})`, type };
      if (v.type.kind === 'typed') return { code: `tsrt::toArray(${v.code})`, type };
      if (v.type.kind === 'string') return { code: `tsrt::codePoints(${v.code})`, type };
      if (v.type.kind === 'array') return { code: `tsrt::slice(${v.code})`, type };
      throw new Unsupported(a, `Array.from of a ${typeName(v.type)} is not in the subset`);
    }
    if (
      g in
        {
          Float32Array: 1,
          Float64Array: 1,
          Int8Array: 1,
          Uint8Array: 1,
          Int16Array: 1,
          Uint16Array: 1,
          Int32Array: 1,
          Uint32Array: 1,
        } &&
      method === 'from' &&
      args.length === 1
    ) {
      const type = this.typeOf(c);
      return {
        code: `${cppType(type)}(${this.argAs(args[0], { kind: 'array', element: NUMBER, readonly: false }, c)})`,
        type,
      };
    }
    throw new Unsupported(c.getExpression(), `${g}.${method} is not in the subset`);
  }

  private checkJson(t: TsType, at: Node): void {
    if (t.kind === 'map' || t.kind === 'set')
      throw new Unsupported(
        at,
        `JSON.stringify of a ${t.kind === 'map' ? 'Map' : 'Set'} prints {}: convert it with Array.from first`,
      );
    if (t.kind === 'optional' || t.kind === 'void')
      throw new Unsupported(at, 'JSON.stringify of a value that may be undefined is not in the subset');
    if (t.kind === 'array') this.checkJson(t.element, at);
    if (t.kind === 'struct') for (const f of this.structs.get(t.name)!) this.checkJson(f.type, at);
  }

  private stringMethod(s: Value, m: string, args: Expression[], c: CallExpression): Value {
    const str = (i: number): string => this.argAs(args[i], STRING, c);
    const num = (i: number): string => this.argAs(args[i], NUMBER, c);
    const opt = (i: number, f: (i: number) => string): string => (args[i] ? `, ${f(i)}` : '');
    const S = (code: string): Value => ({ code, type: STRING });
    const N = (code: string): Value => ({ code, type: NUMBER });
    const B = (code: string): Value => ({ code, type: BOOLEAN });
    const stringArg = (i: number, what: string): string => {
      const a = args[i];
      if (!a) throw new Unsupported(c, 'an argument is missing');
      const v = this.expr(a);
      if (v.type.kind !== 'string')
        throw new Unsupported(
          a,
          `${what} takes a string here (regular expressions and functions are not in the subset)`,
        );
      return v.code;
    };
    switch (m) {
      case 'charAt':
        return S(`tsrt::charAt(${s.code}, ${args[0] ? num(0) : '0.0'})`);
      case 'charCodeAt':
        return N(`tsrt::charCodeAt(${s.code}, ${args[0] ? num(0) : '0.0'})`);
      case 'indexOf':
        return N(`tsrt::indexOf(${s.code}, ${str(0)}${opt(1, num)})`);
      case 'lastIndexOf':
        if (args.length > 1) break;
        return N(`tsrt::lastIndexOf(${s.code}, ${str(0)})`);
      case 'includes':
        return B(`tsrt::includes(${s.code}, ${str(0)}${opt(1, num)})`);
      case 'startsWith':
        return B(`tsrt::startsWith(${s.code}, ${str(0)}${opt(1, num)})`);
      case 'endsWith':
        return B(`tsrt::endsWith(${s.code}, ${str(0)}${opt(1, num)})`);
      case 'slice':
        return S(`tsrt::slice(${s.code}, ${args[0] ? num(0) : '0.0'}${opt(1, num)})`);
      case 'substring':
        return S(`tsrt::substring(${s.code}, ${num(0)}${opt(1, num)})`);
      case 'toUpperCase':
      case 'toLowerCase':
      case 'trim':
      case 'trimStart':
      case 'trimEnd':
        return S(`tsrt::${m}(${s.code})`);
      case 'split':
        return {
          code: `tsrt::split(${s.code}, ${stringArg(0, 'split')}${opt(1, num)})`,
          type: { kind: 'array', element: STRING, readonly: false },
        };
      case 'replace':
      case 'replaceAll':
        return S(`tsrt::${m}(${s.code}, ${stringArg(0, m)}, ${stringArg(1, m)})`);
      case 'repeat':
        return S(`tsrt::repeat(${s.code}, ${num(0)})`);
      case 'padStart':
      case 'padEnd':
        return S(`tsrt::${m}(${s.code}, ${num(0)}${opt(1, str)})`);
      case 'concat':
        return S(`(${[s.code, ...args.map((_, i) => str(i))].join(' + ')})`);
      case 'toString':
        return s;
      case 'localeCompare':
      case 'normalize':
      case 'toLocaleUpperCase':
      case 'toLocaleLowerCase':
        throw new Unsupported(
          c.getExpression(),
          `${m} depends on locale data the compiled step does not carry: compare with < or === instead`,
        );
      case 'match':
      case 'matchAll':
      case 'search':
        throw new Unsupported(
          c.getExpression(),
          `${m} needs regular expressions, which are not in the subset: use indexOf or includes`,
        );
      default:
        break;
    }
    throw new Unsupported(c.getExpression(), `string.${m} is not in the subset`);
  }

  private arrayMethod(a: Value, elem: TsType, m: string, args: Expression[], c: CallExpression): Value {
    const arr = (t: TsType): TsType => ({ kind: 'array', element: t, readonly: false });
    const num = (i: number): string => this.argAs(args[i], NUMBER, c);
    const item = (i: number): string => this.argAs(args[i], elem, c);
    const opt = (i: number, f: (i: number) => string): string => (args[i] ? `, ${f(i)}` : '');
    const out = (code: string, type: TsType): Value => ({ code, type });
    switch (m) {
      case 'push':
        if (args.length === 1) return out(`tsrt::push(${a.code}, ${item(0)})`, NUMBER);
        return out(
          `[&]() { double tsrt_n = 0; ${args.map((_, i) => `tsrt_n = tsrt::push(${a.code}, ${item(i)});`).join(' ')} return tsrt_n; }()`,
          NUMBER,
        );
      case 'pop':
      case 'shift':
        return out(`tsrt::${m}(${a.code})`, { kind: 'optional', inner: elem });
      case 'unshift':
        if (args.length !== 1) break;
        return out(`tsrt::unshift(${a.code}, ${item(0)})`, NUMBER);
      case 'slice':
        return out(`tsrt::slice(${a.code}${opt(0, num)}${opt(1, num)})`, arr(elem));
      case 'indexOf':
      case 'includes':
        if (args.length !== 1) break;
        return out(`tsrt::${m}(${a.code}, ${item(0)})`, m === 'indexOf' ? NUMBER : BOOLEAN);
      case 'join':
        if (elem.kind === 'struct' || elem.kind === 'map' || elem.kind === 'set') break;
        return out(`tsrt::join(${a.code}${opt(0, (i) => this.argAs(args[i], STRING, c))})`, STRING);
      case 'reverse':
        return out(`tsrt::reverse(${a.code})`, a.type);
      case 'fill':
        if (args.length !== 1) break;
        return out(`tsrt::fill(${a.code}, ${item(0)})`, a.type);
      case 'concat':
        if (args.length !== 1) break;
        return out(`tsrt::concat(${a.code}, ${this.argAs(args[0], a.type, c)})`, arr(elem));
      case 'map': {
        const f = this.callback(args[0], c, 2);
        return out(`tsrt::map(${a.code}, ${f.code})`, arr(f.ret));
      }
      case 'filter':
      case 'some':
      case 'every':
      case 'findIndex':
      case 'find': {
        const f = this.callback(args[0], c, 2);
        if (f.ret.kind !== 'boolean')
          throw new Unsupported(
            args[0]!,
            `the ${m} callback must return a boolean (truthiness is not in the subset)`,
          );
        const type =
          m === 'filter'
            ? arr(elem)
            : m === 'findIndex'
              ? NUMBER
              : m === 'find'
                ? ({ kind: 'optional', inner: elem } as TsType)
                : BOOLEAN;
        return out(`tsrt::${m}(${a.code}, ${f.code})`, type);
      }
      case 'forEach': {
        const f = this.callback(args[0], c, 2);
        return out(`tsrt::forEach(${a.code}, ${f.code})`, { kind: 'void' });
      }
      case 'reduce': {
        const f = this.callback(args[0], c, 3);
        if (args.length === 1) return out(`tsrt::reduce1(${a.code}, ${f.code})`, elem);
        return out(`tsrt::reduce(${a.code}, ${f.code}, ${this.argAs(args[1], f.ret, c)})`, f.ret);
      }
      case 'sort': {
        if (args.length === 0) {
          if (elem.kind !== 'string' && elem.kind !== 'number') break;
          return out(`tsrt::sortDefault(${a.code})`, a.type);
        }
        const f = this.callback(args[0], c, 2);
        if (f.ret.kind !== 'number')
          throw new Unsupported(args[0]!, 'the sort comparator must return a number');
        return out(`tsrt::sort(${a.code}, ${f.code})`, a.type);
      }
      default:
        break;
    }
    throw new Unsupported(c.getExpression(), `array.${m}(${args.length ? '…' : ''}) is not in the subset`);
  }

  private typedMethod(a: Value, m: string, args: Expression[], c: CallExpression): Value {
    const num = (i: number): string => this.argAs(args[i], NUMBER, c);
    const opt = (i: number): string => (args[i] ? `, ${num(i)}` : '');
    switch (m) {
      case 'slice':
        return { code: `tsrt::slice(${a.code}${opt(0)}${opt(1)})`, type: a.type };
      case 'fill':
        if (args.length !== 1) break;
        return { code: `tsrt::fill(${a.code}, ${num(0)})`, type: a.type };
      case 'indexOf':
      case 'includes':
        if (args.length !== 1) break;
        return { code: `tsrt::${m}(${a.code}, ${num(0)})`, type: m === 'indexOf' ? NUMBER : BOOLEAN };
      case 'join':
        return {
          code: `tsrt::join(${a.code}${args[0] ? `, ${this.argAs(args[0], STRING, c)}` : ''})`,
          type: STRING,
        };
      default:
        break;
    }
    throw new Unsupported(c.getExpression(), `${typeName(a.type)}.${m} is not in the subset`);
  }

  private collectionMethod(a: Value, m: string, args: Expression[], c: CallExpression): Value {
    const t = a.type as Extract<TsType, { kind: 'map' | 'set' }>;
    const key = t.kind === 'map' ? t.key : t.element;
    const k = (): string => this.argAs(args[0], key, c);
    switch (m) {
      case 'has':
        return { code: `${a.code}.has(${k()})`, type: BOOLEAN };
      case 'delete':
        return { code: `${a.code}.remove(${k()})`, type: BOOLEAN };
      case 'clear':
        return { code: `${a.code}.clear()`, type: { kind: 'void' } };
      case 'get':
        if (t.kind !== 'map') break;
        return { code: `${a.code}.get(${k()})`, type: { kind: 'optional', inner: t.value } };
      case 'set':
        if (t.kind !== 'map') break;
        return { code: `${a.code}.set(${k()}, ${this.argAs(args[1], t.value, c)})`, type: t };
      case 'add':
        if (t.kind !== 'set') break;
        return { code: `${a.code}.add(${k()})`, type: t };
      case 'keys':
      case 'values':
      case 'entries':
        throw new Unsupported(c, `${m}() is in the subset inside for-of or Array.from(…) only`);
      default:
        break;
    }
    throw new Unsupported(c.getExpression(), `${typeName(t)}.${m} is not in the subset`);
  }

  private newExpression(e: import('ts-morph').NewExpression): Value {
    const ctor = e.getExpression();
    const name = ctor.getText();
    const args = this.args(e);
    if (name === 'Error' || name === 'RangeError' || name === 'TypeError') {
      throw new Unsupported(e, 'errors are in the subset only as `throw new Error(message)`');
    }
    const type = this.tsType(e.getContextualType() && !e.getType().isAny() ? e.getType() : e.getType(), e);
    if (type.kind === 'map' && args.length === 0) return { code: `${cppType(type)}()`, type };
    if (type.kind === 'set') {
      if (args.length === 0) return { code: `${cppType(type)}()`, type };
      if (args.length === 1)
        return {
          code: `${cppType(type)}(${this.argAs(args[0], { kind: 'array', element: type.element, readonly: false }, e)})`,
          type,
        };
    }
    if (type.kind === 'typed' && args.length === 1) {
      const v = this.expr(args[0]!);
      if (v.type.kind === 'number' || v.type.kind === 'array')
        return { code: `${cppType(type)}(${v.code})`, type };
    }
    if (name === 'Array')
      throw new Unsupported(
        e,
        'new Array(n) makes holes, which are not in the subset: start from [] and push',
      );
    throw new Unsupported(e, `new ${name}(…) is not in the subset`);
  }
}

/** The binary operator of each compound assignment (made on first use: reading SyntaxKind loads ts-morph). */
let binaryOfCompoundMap: Partial<Record<SyntaxKind, SyntaxKind>> | undefined;
const binaryOfCompound = (): Partial<Record<SyntaxKind, SyntaxKind>> =>
  (binaryOfCompoundMap ??= {
    [SyntaxKind.PlusEqualsToken]: SyntaxKind.PlusToken,
    [SyntaxKind.MinusEqualsToken]: SyntaxKind.MinusToken,
    [SyntaxKind.AsteriskEqualsToken]: SyntaxKind.AsteriskToken,
    [SyntaxKind.SlashEqualsToken]: SyntaxKind.SlashToken,
    [SyntaxKind.PercentEqualsToken]: SyntaxKind.PercentToken,
    [SyntaxKind.AmpersandEqualsToken]: SyntaxKind.AmpersandToken,
    [SyntaxKind.BarEqualsToken]: SyntaxKind.BarToken,
    [SyntaxKind.CaretEqualsToken]: SyntaxKind.CaretToken,
    [SyntaxKind.LessThanLessThanEqualsToken]: SyntaxKind.LessThanLessThanToken,
    [SyntaxKind.GreaterThanGreaterThanEqualsToken]: SyntaxKind.GreaterThanGreaterThanToken,
    [SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken]:
      SyntaxKind.GreaterThanGreaterThanGreaterThanToken,
  });

function isAssignment(k: SyntaxKind): boolean {
  return (
    k === SyntaxKind.EqualsToken ||
    k in binaryOfCompound() ||
    k === SyntaxKind.AsteriskAsteriskEqualsToken ||
    k === SyntaxKind.BarBarEqualsToken ||
    k === SyntaxKind.AmpersandAmpersandEqualsToken ||
    k === SyntaxKind.QuestionQuestionEqualsToken
  );
}

/** A name bound by the standard library (Math, JSON…), not shadowed by the module. */
function isGlobal(id: import('ts-morph').Identifier): boolean {
  const decl = id.getSymbol()?.getDeclarations()[0];
  return !decl || decl.getSourceFile().isDeclarationFile();
}

function paramType(t: TsType, byValue: boolean): string {
  const cpp = cppType(t);
  return byValue || t.kind === 'number' || t.kind === 'boolean' ? cpp : `const ${cpp}&`;
}

function endsWithReturnOrThrow(b: Block): boolean {
  const last = b.getStatements().at(-1);
  return !!last && (Node.isReturnStatement(last) || Node.isThrowStatement(last));
}
