/**
 * Operators → C++: assignments (compound ones through their binary operator), &&/||/?? on
 * booleans and optionals, arithmetic and comparisons on numbers and strings, bitwise operators
 * through the runtime's ToInt32/ToUint32 (`tsrt::bitAnd`…), ++/-- on numbers. Operators whose
 * JavaScript meaning depends on conversions (==, unary + on strings, in, instanceof) are refused.
 */
import type { BinaryExpression, PostfixUnaryExpression, PrefixUnaryExpression } from 'ts-morph';
import { Node, SyntaxKind } from '../tsMorph.js';
import { BOOLEAN, NUMBER, STRING, cppType, typeName } from '../types.js';
import type { Emitter } from './emitter.js';
import { Unsupported, type Value } from './unsupported.js';

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

export function isAssignment(k: SyntaxKind): boolean {
  return (
    k === SyntaxKind.EqualsToken ||
    k in binaryOfCompound() ||
    k === SyntaxKind.AsteriskAsteriskEqualsToken ||
    k === SyntaxKind.BarBarEqualsToken ||
    k === SyntaxKind.AmpersandAmpersandEqualsToken ||
    k === SyntaxKind.QuestionQuestionEqualsToken
  );
}

export function binary(em: Emitter, e: BinaryExpression, discarded: boolean): Value {
  const op = e.getOperatorToken().getKind();
  const leftNode = e.getLeft();
  const rightNode = e.getRight();
  if (isAssignment(op)) return assignment(em, e, discarded);
  if (op === SyntaxKind.AmpersandAmpersandToken || op === SyntaxKind.BarBarToken) {
    const l = em.condition(leftNode);
    const r = em.condition(rightNode);
    return { code: `(${l} ${op === SyntaxKind.AmpersandAmpersandToken ? '&&' : '||'} ${r})`, type: BOOLEAN };
  }
  if (op === SyntaxKind.QuestionQuestionToken) {
    const l = em.expr(leftNode);
    if (l.type.kind !== 'optional')
      throw new Unsupported(
        leftNode,
        '?? is in the subset after a call that may return undefined (pop, find, Map.get)',
      );
    const r = em.expr(rightNode);
    return {
      code: `tsrt::coalesce(${l.code}, [&]() { return ${em.convert(r, l.type.inner, rightNode)}; })`,
      type: l.type.inner,
    };
  }
  if (op === SyntaxKind.EqualsEqualsToken || op === SyntaxKind.ExclamationEqualsToken) {
    throw new Unsupported(
      e.getOperatorToken(),
      `== and != convert types: write ${op === SyntaxKind.EqualsEqualsToken ? '===' : '!=='}`,
    );
  }
  const l = em.expr(leftNode);
  const r = em.expr(rightNode);
  return arith(em, op, l, r, e);
}

function assignment(em: Emitter, e: BinaryExpression, discarded: boolean): Value {
  const op = e.getOperatorToken().getKind();
  const rightNode = e.getRight();
  const target = em.lvalue(e.getLeft());
  const r = em.expr(rightNode);
  let value: string;
  if (op === SyntaxKind.EqualsToken) {
    value = em.convert(r, target.type, rightNode);
  } else {
    const base = binaryOfCompound()[op];
    if (!base) throw new Unsupported(e, `${e.getOperatorToken().getText()} is not in the subset`);
    value = arith(em, base, { code: target.read, type: target.type }, r, e).code;
    if (target.type.kind === 'string' && !target.setter && base === SyntaxKind.PlusToken) {
      return { code: `tsrt::append(${target.code}, ${em.toStr(r, rightNode)})`, type: STRING };
    }
  }
  if (target.setter) return { code: target.setter(value), type: target.type };
  return { code: discarded ? `${target.code} = ${value}` : `(${target.code} = ${value})`, type: target.type };
}

/** The runtime's integer operators (ToInt32/ToUint32 as JS applies them). */
const BITWISE = (): Partial<Record<SyntaxKind, string>> => ({
  [SyntaxKind.AmpersandToken]: 'bitAnd',
  [SyntaxKind.BarToken]: 'bitOr',
  [SyntaxKind.CaretToken]: 'bitXor',
  [SyntaxKind.LessThanLessThanToken]: 'shl',
  [SyntaxKind.GreaterThanGreaterThanToken]: 'sar',
  [SyntaxKind.GreaterThanGreaterThanGreaterThanToken]: 'shr',
});

const ORDERING = (): Partial<Record<SyntaxKind, string>> => ({
  [SyntaxKind.LessThanToken]: '<',
  [SyntaxKind.LessThanEqualsToken]: '<=',
  [SyntaxKind.GreaterThanToken]: '>',
  [SyntaxKind.GreaterThanEqualsToken]: '>=',
});

export function arith(em: Emitter, op: SyntaxKind, l: Value, r: Value, e: Node): Value {
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
        return { code: `tsrt::plus(${em.toStr(l, e)}, ${em.toStr(r, e)})`, type: STRING };
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
    case SyntaxKind.EqualsEqualsEqualsToken:
    case SyntaxKind.ExclamationEqualsEqualsToken:
      return strictEquality(op, l, r, e);
    case SyntaxKind.InKeyword:
    case SyntaxKind.InstanceOfKeyword:
      throw new Unsupported(
        e,
        '`in` and `instanceof` are not in the subset: every value has one static type',
      );
    case SyntaxKind.CommaToken:
      throw new Unsupported(e, 'the comma operator is not in the subset: write two statements');
    default:
      break;
  }
  const bitwise = BITWISE()[op];
  if (bitwise) {
    num();
    return { code: `tsrt::${bitwise}(${l.code}, ${r.code})`, type: NUMBER };
  }
  const sym = ORDERING()[op];
  if (sym) {
    const both = (k: string): boolean => l.type.kind === k && r.type.kind === k;
    if (!both('number') && !both('string'))
      throw new Unsupported(e, 'ordering is in the subset between two numbers or two strings');
    return { code: `(${l.code} ${sym} ${r.code})`, type: BOOLEAN };
  }
  throw new Unsupported(e, 'this operator is not in the subset');
}

function strictEquality(op: SyntaxKind, l: Value, r: Value, e: Node): Value {
  if (l.type.kind === 'optional' || r.type.kind === 'optional')
    throw new Unsupported(e, 'comparing with undefined is not in the subset: use ?? or has()');
  if (cppType(l.type) !== cppType(r.type))
    throw new Unsupported(e, `comparing ${typeName(l.type)} with ${typeName(r.type)} is always false`);
  return {
    code: `(${l.code} ${op === SyntaxKind.EqualsEqualsEqualsToken ? '==' : '!='} ${r.code})`,
    type: BOOLEAN,
  };
}

export function prefix(em: Emitter, e: PrefixUnaryExpression): Value {
  const op = e.getOperatorToken();
  const operand = e.getOperand();
  if (op === SyntaxKind.PlusPlusToken || op === SyntaxKind.MinusMinusToken) {
    const target = em.lvalue(operand);
    if (target.type.kind !== 'number')
      throw new Unsupported(e, '++ and -- are in the subset on numbers only');
    if (target.setter) throw new Unsupported(e, 'write a[i] = a[i] + 1 for typed array elements');
    return { code: `(${op === SyntaxKind.PlusPlusToken ? '++' : '--'}${target.code})`, type: NUMBER };
  }
  if (op === SyntaxKind.ExclamationToken) return { code: `(!${em.condition(operand)})`, type: BOOLEAN };
  const v = em.expr(operand);
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

export function postfix(em: Emitter, e: PostfixUnaryExpression): Value {
  const target = em.lvalue(e.getOperand());
  if (target.type.kind !== 'number') throw new Unsupported(e, '++ and -- are in the subset on numbers only');
  const op = e.getOperatorToken() === SyntaxKind.PlusPlusToken ? '++' : '--';
  if (target.setter)
    throw new Unsupported(
      e,
      `${op} on a typed array element is not in the subset: write a[i] = a[i] ${op[0]} 1`,
    );
  return { code: `${target.code}${op}`, type: NUMBER };
}
