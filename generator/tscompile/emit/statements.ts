/**
 * Statements → C++ lines, one function per kind of statement. Control flow keeps its shape
 * (if/while/for/switch/for-of become their C++ forms); what JS would do differently from a
 * direct translation (switch's === per case, for-of over code points and live Map entries) is
 * spelled out here.
 */
import type {
  Expression,
  ForOfStatement,
  ForStatement,
  IfStatement,
  ReturnStatement,
  Statement,
  SwitchStatement,
  ThrowStatement,
  VariableStatement,
} from 'ts-morph';
import { Node } from '../tsMorph.js';
import { cppName } from '../cppText.js';
import { NUMBER, STRING, cppType, typeName, type TsType } from '../types.js';
import type { Emitter } from './emitter.js';
import { Unsupported, type Value } from './unsupported.js';

type OnError = (e: Unsupported) => void;

/** The first statement of every loop body: the time budget is checked as the loop runs (ts_core.h). */
const LOOP_CHECK = 'tsrt::tick();';

export function statement(em: Emitter, s: Statement, onError: OnError): void {
  if (Node.isBlock(s)) return em.nested(s, onError);
  if (Node.isEmptyStatement(s)) return;
  if (Node.isExpressionStatement(s)) {
    const v = em.expr(s.getExpression(), true);
    em.line(`${v.type.kind === 'optional' ? `(void)(${v.code})` : v.code};`);
    return;
  }
  if (Node.isVariableStatement(s)) return variableStatement(em, s);
  if (Node.isReturnStatement(s)) return returnStatement(em, s);
  if (Node.isIfStatement(s)) return ifStatement(em, s, onError);
  if (Node.isWhileStatement(s)) {
    em.line(`while (${em.condition(s.getExpression())})`);
    em.nested(s.getStatement(), onError, LOOP_CHECK);
    return;
  }
  if (Node.isDoStatement(s)) {
    em.line('do');
    em.nested(s.getStatement(), onError, LOOP_CHECK);
    em.line(`while (${em.condition(s.getExpression())});`);
    return;
  }
  if (Node.isForStatement(s)) return forStatement(em, s, onError);
  if (Node.isForOfStatement(s)) return forOf(em, s, onError);
  if (Node.isSwitchStatement(s)) return switchStatement(em, s, onError);
  if (Node.isBreakStatement(s) || Node.isContinueStatement(s)) {
    if (s.getLabel())
      throw new Unsupported(s, 'labelled break/continue is not in the subset: use a flag or a function');
    em.line(Node.isBreakStatement(s) ? 'break;' : 'continue;');
    return;
  }
  if (Node.isThrowStatement(s)) return throwStatement(em, s);
  refuseStatement(s);
}

/** The statements outside the subset, each with what to write instead. */
function refuseStatement(s: Statement): never {
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

function variableStatement(em: Emitter, s: VariableStatement): void {
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
    const initValue = init && em.expr(init); // first: its own errors are the precise ones
    const type = em.tsType(d.getType(), d, `variable ${d.getName()}`);
    if (type.kind === 'optional') {
      throw new Unsupported(
        d,
        `${d.getName()} may be undefined: write \`?? default\` or \`!\` where the value is produced`,
      );
    }
    const value = init && initValue ? em.convert(initValue, type, init) : `${cppType(type)}{}`;
    em.line(`${cppType(type)} ${cppName(d.getName())} = ${value};`);
  }
}

function returnStatement(em: Emitter, s: ReturnStatement): void {
  const e = s.getExpression();
  if (!e) return em.line('return;');
  const fn = s.getFirstAncestor((a) => Node.isFunctionDeclaration(a) || Node.isArrowFunction(a));
  const expected =
    fn && (Node.isFunctionDeclaration(fn) || Node.isArrowFunction(fn))
      ? em.tsType(fn.getReturnType(), fn)
      : em.typeOf(e);
  em.line(`return ${em.convert(em.expr(e), expected, e)};`);
}

function ifStatement(em: Emitter, s: IfStatement, onError: OnError): void {
  em.line(`if (${em.condition(s.getExpression())})`);
  em.nested(s.getThenStatement(), onError);
  const other = s.getElseStatement();
  if (other) {
    em.line('else');
    em.nested(other, onError);
  }
}

function forStatement(em: Emitter, s: ForStatement, onError: OnError): void {
  em.line('{');
  em.depth++;
  const init = s.getInitializer();
  if (init && Node.isVariableDeclarationList(init)) {
    if (init.getDeclarationKindKeywords()[0]?.getText() === 'var')
      throw new Unsupported(init, '`var` is not in the subset: use let');
    for (const d of init.getDeclarations()) {
      if (!Node.isIdentifier(d.getNameNode())) throw new Unsupported(d, 'destructuring is not in the subset');
      const type = em.tsType(d.getType(), d, `variable ${d.getName()}`);
      const i = d.getInitializer();
      em.line(
        `${cppType(type)} ${cppName(d.getName())} = ${i ? em.convert(em.expr(i), type, i) : `${cppType(type)}{}`};`,
      );
    }
  } else if (init) {
    em.line(`${em.expr(init as Expression, true).code};`);
  }
  const cond = s.getCondition();
  const inc = s.getIncrementor();
  em.line(`for (; ${cond ? em.condition(cond) : ''}; ${inc ? em.expr(inc, true).code : ''})`);
  em.nested(s.getStatement(), onError, LOOP_CHECK);
  em.depth--;
  em.line('}');
}

function throwStatement(em: Emitter, s: ThrowStatement): void {
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
      const msg = args[0] ? em.convert(em.expr(args[0] as Expression), STRING, args[0]!) : 'tsrt::Str()';
      em.line(`${fn}(${msg});`);
      return;
    }
  }
  throw new Unsupported(e, 'only `throw new Error(message)` (or RangeError/TypeError) is in the subset');
}

type ForOfMode = 'keys' | 'values' | 'entries' | 'plain';

/** What a for-of walks: m.keys() / m.values() / m.entries() / s.values() walk the live entries. */
function iterated(em: Emitter, s: ForOfStatement): { collection: Value; mode: ForOfMode } {
  const it = s.getExpression();
  if (
    Node.isCallExpression(it) &&
    Node.isPropertyAccessExpression(it.getExpression()) &&
    it.getArguments().length === 0
  ) {
    const pa = it.getExpression() as import('ts-morph').PropertyAccessExpression;
    const recv = em.typeOf(pa.getExpression());
    const m = pa.getName();
    if ((recv.kind === 'map' || recv.kind === 'set') && (m === 'keys' || m === 'values' || m === 'entries')) {
      const collection = em.expr(pa.getExpression());
      const mode = recv.kind === 'set' && m === 'entries' ? 'plain' : m;
      if (recv.kind === 'set' && m === 'entries')
        throw new Unsupported(it, 'Set.entries() is not in the subset: iterate the set');
      return { collection, mode };
    }
  }
  return { collection: em.expr(it), mode: 'plain' };
}

function forOf(em: Emitter, s: ForOfStatement, onError: OnError): void {
  if (s.isAwaited()) throw new Unsupported(s, 'for await is not in the subset');
  const init = s.getInitializer();
  if (!Node.isVariableDeclarationList(init))
    throw new Unsupported(init, 'declare the loop variable in the loop: for (const x of xs)');
  const nameNode = init.getDeclarations()[0]!.getNameNode();
  const n = em.nextTemp();
  const t = `tsrt_it${n}`;
  const i = `tsrt_i${n}`;
  const { collection, mode } = iterated(em, s);
  const ct = collection.type;
  em.line('{');
  em.depth++;
  em.line(`auto ${t} = ${ct.kind === 'string' ? `tsrt::codePoints(${collection.code})` : collection.code};`);
  const bindOne = (valueCode: string, valueType: TsType): void => {
    if (!Node.isIdentifier(nameNode))
      throw new Unsupported(
        nameNode,
        'destructuring is only in the subset for Map entries: for (const [key, value] of map)',
      );
    em.line(`${cppType(valueType)} ${cppName(nameNode.getText())} = ${valueCode};`);
  };
  if (ct.kind === 'array' || ct.kind === 'string') {
    const elem = ct.kind === 'string' ? STRING : ct.element;
    em.line(`for (size_t ${i} = 0; ${i} < ${t}.size(); ++${i}) {`);
    em.depth++;
    bindOne(`(*${t}.p)[${i}]`, elem);
  } else if (ct.kind === 'typed') {
    em.line(`for (size_t ${i} = 0; ${i} < ${t}.size(); ++${i}) {`);
    em.depth++;
    bindOne(`static_cast<double>((*${t}.p)[${i}])`, NUMBER);
  } else if (ct.kind === 'map' || ct.kind === 'set') {
    em.line(`for (size_t ${i} = 0; ${i} < ${t}.p->entries.size(); ++${i}) {`);
    em.depth++;
    em.line(`if (!${t}.p->entries[${i}]) continue;`);
    const entry = `${t}.p->entries[${i}]`;
    if (ct.kind === 'set') bindOne(`${entry}->first`, ct.element);
    else if (mode === 'keys') bindOne(`${entry}->first`, ct.key);
    else if (mode === 'values') bindOne(`${entry}->second`, ct.value);
    else bindEntry(em, nameNode, entry, ct);
  } else {
    throw new Unsupported(
      s.getExpression(),
      `for-of over ${typeName(ct)} is not in the subset: iterate an array, a string, a typed array, a Map or a Set`,
    );
  }
  em.line(LOOP_CHECK);
  const body = s.getStatement();
  if (Node.isBlock(body)) em.block(body, onError);
  else em.statement(body, onError);
  em.depth--;
  em.line('}');
  em.depth--;
  em.line('}');
}

/** for (const [key, value] of map): each name bound to its half of the live entry. */
function bindEntry(em: Emitter, nameNode: Node, entry: string, ct: Extract<TsType, { kind: 'map' }>): void {
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
    em.line(`${cppType(type)} ${cppName(n.getText())} = ${code};`);
  }
}

function switchStatement(em: Emitter, s: SwitchStatement, onError: OnError): void {
  const d = em.expr(s.getExpression());
  if (d.type.kind !== 'number' && d.type.kind !== 'string') {
    throw new Unsupported(s.getExpression(), 'switch is in the subset on numbers and strings only');
  }
  const n = em.nextTemp();
  const clauses = s.getCaseBlock().getClauses();
  em.line('{');
  em.depth++;
  em.line(`${cppType(d.type)} tsrt_sw${n} = ${d.code};`);
  em.line(`int tsrt_case${n} = -1;`);
  // JS compares case by case with ===, then falls through in source order: pick the clause
  // index first, then a C++ switch over indices keeps fallthrough and break as they are.
  let first = true;
  clauses.forEach((c, index) => {
    if (Node.isCaseClause(c)) {
      const v = em.convert(em.expr(c.getExpression()), d.type, c.getExpression());
      em.line(`${first ? '' : 'else '}if (tsrt_sw${n} == ${v}) tsrt_case${n} = ${index};`);
      first = false;
    }
  });
  const def = clauses.findIndex((c) => Node.isDefaultClause(c));
  if (def >= 0) em.line(`${first ? '' : 'else '}tsrt_case${n} = ${def};`);
  em.line(`switch (tsrt_case${n}) {`);
  clauses.forEach((c, index) => {
    em.line(`case ${index}: {`);
    em.depth++;
    em.statements(c.getStatements(), onError);
    em.depth--;
    em.line('}');
    em.line('[[fallthrough]];');
  });
  em.line('default: break;');
  em.line('}');
  em.depth--;
  em.line('}');
}
