/**
 * The shape of the built-in tables: each row is a JavaScript method (or static function), the
 * runtime call it becomes and the type of its result. `method(…)` and `func(…)` write the usual
 * row — `runtime(receiver, arguments…)` with each argument converted to its parameter's type —
 * and rows that need more (callbacks, variadic arguments, a refusal with advice) give their own
 * `emit`. A row's `emit` returns undefined when the call's arguments are not in the subset; the
 * table then names the call as unsupported.
 */
import type { CallExpression, Expression } from 'ts-morph';
import { BOOLEAN, NUMBER, STRING, typeName, type TsType } from '../types.js';
import type { Emitter } from '../emit/emitter.js';
import { Unsupported, type Value } from '../emit/unsupported.js';

/** A call of a built-in: the receiver (a placeholder for static functions), arguments, node. */
export interface BuiltinCall {
  em: Emitter;
  recv: Value;
  name: string;
  args: Expression[];
  node: CallExpression;
}

export interface BuiltinRow {
  /** The JavaScript name: `charAt`, `floor` (of Math)… */
  js: string;
  emit: (call: BuiltinCall) => Value | undefined;
}

/** What a parameter takes: a type (of the call, e.g. the receiver's element), optional or defaulted. */
export interface Param {
  type: (call: BuiltinCall) => TsType;
  /** The C++ argument when the call leaves it out; without it (and not optional) it is required. */
  absent?: string;
  optional?: boolean;
  /** A string parameter where JS would also take a RegExp or a function: refused with this name. */
  stringOnly?: string;
}

export const NUM: Param = { type: () => NUMBER };
export const STR: Param = { type: () => STRING };
/** The receiver's element: an array's element type, a typed array's number. */
export const ITEM: Param = { type: (c) => elementOf(c.recv.type) };
export const optional = (p: Param): Param => ({ ...p, optional: true });
export const orElse = (p: Param, absent: string): Param => ({ ...p, absent });
export const stringOnly = (what: string): Param => ({ ...STR, stringOnly: what });

export type Returns = TsType | ((call: BuiltinCall) => TsType);

export interface Arity {
  /** Exactly this many arguments, else not in the subset. */
  args?: number;
  /** At most this many arguments. */
  maxArgs?: number;
}

/** A row `receiver.js(…)` → `runtime(receiver, …)`. */
export function method(
  runtime: string,
  params: Param[],
  returns: Returns,
  arity: Arity = {},
): BuiltinRow['emit'] {
  return (call) => runtimeCall(call, runtime, [call.recv.code], params, returns, arity);
}

/** A static row `Global.js(…)` → `runtime(…)`. */
export function func(
  runtime: string,
  params: Param[],
  returns: Returns,
  arity: Arity = {},
): BuiltinRow['emit'] {
  return (call) => runtimeCall(call, runtime, [], params, returns, arity);
}

/** A variadic static row: `runtime({a, b, …})`, every argument a number. */
export function numberList(runtime: string, returns: TsType): BuiltinRow['emit'] {
  return ({ em, args, node }) => ({
    code: `${runtime}({${args.map((a) => em.argAs(a, NUMBER, node)).join(', ')}})`,
    type: returns,
  });
}

/** A row outside the subset on purpose, with what to write instead. */
export function refuse(advice: (name: string) => string): BuiltinRow['emit'] {
  return ({ node, name }) => {
    throw new Unsupported(node.getExpression(), advice(name));
  };
}

function runtimeCall(
  call: BuiltinCall,
  runtime: string,
  first: string[],
  params: Param[],
  returns: Returns,
  arity: Arity,
): Value | undefined {
  const { args } = call;
  if (arity.args !== undefined && args.length !== arity.args) return undefined;
  if (arity.maxArgs !== undefined && args.length > arity.maxArgs) return undefined;
  const parts = [...first];
  params.forEach((p, i) => {
    if (args[i]) parts.push(argument(call, p, args[i]!));
    else if (p.absent !== undefined) parts.push(p.absent);
    else if (!p.optional) throw new Unsupported(call.node, 'an argument is missing');
  });
  return {
    code: `${runtime}(${parts.join(', ')})`,
    type: typeof returns === 'function' ? returns(call) : returns,
  };
}

function argument(call: BuiltinCall, p: Param, a: Expression): string {
  if (p.stringOnly === undefined) return call.em.argAs(a, p.type(call), call.node);
  const v = call.em.expr(a);
  if (v.type.kind !== 'string')
    throw new Unsupported(
      a,
      `${p.stringOnly} takes a string here (regular expressions and functions are not in the subset)`,
    );
  return v.code;
}

/** The element type of an array or typed array receiver. */
export function elementOf(t: TsType): TsType {
  return t.kind === 'array' ? t.element : NUMBER;
}

export const arrayOf = (element: TsType): TsType => ({ kind: 'array', element, readonly: false });
export const optionalOf = (inner: TsType): TsType => ({ kind: 'optional', inner });
export { BOOLEAN, NUMBER, STRING, typeName };
export type { TsType };

/** A table: its rows by name, and the message for a call none of them takes. */
export class BuiltinTable {
  private readonly rows: Map<string, BuiltinRow['emit']>;

  constructor(
    rows: BuiltinRow[],
    private readonly unsupported: (call: BuiltinCall) => Unsupported,
  ) {
    this.rows = new Map(rows.map((r) => [r.js, r.emit]));
  }

  has(name: string): boolean {
    return this.rows.has(name);
  }

  /** The row's call, or Unsupported naming it. */
  call(call: BuiltinCall): Value {
    const v = this.rows.get(call.name)?.(call);
    if (v) return v;
    throw this.unsupported(call);
  }
}

/** The receiver placeholder of a static call (Math, JSON, Array…). */
export const NO_RECEIVER: Value = { code: '', type: { kind: 'void' } };

/** A row `receiver.js(…)` → `receiver.member(…)`: the runtime type's own method (Map, Set). */
export function member(
  name: string,
  params: Param[],
  returns: Returns,
  arity: Arity = {},
): BuiltinRow['emit'] {
  return (call) => {
    const v = runtimeCall(call, `${call.recv.code}.${name}`, [], params, returns, arity);
    return v;
  };
}
