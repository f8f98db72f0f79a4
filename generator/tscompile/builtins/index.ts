/**
 * The standard library a compiled module may call, one table per family (math.ts, string.ts,
 * array.ts, typedArray.ts, collections.ts, json.ts): which table serves a call is decided here,
 * by the receiver's type for methods and by the global's name for static functions.
 */
import type { CallExpression, Expression, Identifier, NewExpression } from 'ts-morph';
import { Unsupported, type Value } from '../emit/unsupported.js';
import type { Emitter } from '../emit/emitter.js';
import { ARRAY_METHODS, ARRAY_STATICS } from './array.js';
import { COLLECTION_METHODS, newCollection } from './collections.js';
import { JSON_STATICS } from './json.js';
import {
  BOOLEAN_METHODS,
  MATH,
  NO_METHODS,
  NUMBER_GLOBALS,
  NUMBER_METHODS,
  NUMBER_STATICS,
  staticUnsupported,
} from './math.js';
import { STRING_GLOBALS, STRING_METHODS, STRING_STATICS } from './string.js';
import { BuiltinTable, NO_RECEIVER } from './table.js';
import { newTypedArray, TYPED_METHODS, typedStatics } from './typedArray.js';

export { globalConstant } from './math.js';

const GLOBAL_FUNCTIONS = new BuiltinTable(
  [...NUMBER_GLOBALS, ...STRING_GLOBALS],
  ({ node, name }) =>
    new Unsupported(node.getExpression(), `${name} is not a function of this module or of the subset`),
);

const STATICS: Record<string, BuiltinTable> = {
  Math: MATH,
  Number: NUMBER_STATICS,
  String: STRING_STATICS,
  JSON: JSON_STATICS,
  Array: ARRAY_STATICS,
};

/** `name(…)` where name is a global function (Number, String, isNaN…). */
export function globalCall(em: Emitter, callee: Identifier, args: Expression[], node: CallExpression): Value {
  return GLOBAL_FUNCTIONS.call({ em, recv: NO_RECEIVER, name: callee.getText(), args, node });
}

/** `G.name(…)` where G is a global (Math, JSON, Array, Float32Array…). */
export function staticCall(
  em: Emitter,
  g: string,
  name: string,
  args: Expression[],
  node: CallExpression,
): Value {
  const table = (Object.hasOwn(STATICS, g) ? STATICS[g] : undefined) ?? typedStatics(g);
  const call = { em, recv: NO_RECEIVER, name, args, node };
  if (table) return table.call(call);
  throw staticUnsupported(g)(call);
}

/** `recv.name(…)`, by the receiver's type. */
export function methodCall(
  em: Emitter,
  recv: Value,
  name: string,
  args: Expression[],
  node: CallExpression,
): Value {
  const table = {
    string: STRING_METHODS,
    array: ARRAY_METHODS,
    typed: TYPED_METHODS,
    map: COLLECTION_METHODS,
    set: COLLECTION_METHODS,
    number: NUMBER_METHODS,
    boolean: BOOLEAN_METHODS,
  }[recv.type.kind as string];
  return (table ?? NO_METHODS).call({ em, recv, name, args, node });
}

/** `new X(…)`: Map, Set and typed arrays; errors only as `throw new Error(…)`. */
export function newBuiltin(em: Emitter, e: NewExpression): Value {
  const name = e.getExpression().getText();
  const args = em.args(e);
  if (name === 'Error' || name === 'RangeError' || name === 'TypeError') {
    throw new Unsupported(e, 'errors are in the subset only as `throw new Error(message)`');
  }
  const type = em.tsType(e.getType(), e);
  const made = newCollection(em, type, args, e) ?? newTypedArray(em, type, args);
  if (made) return made;
  if (name === 'Array')
    throw new Unsupported(e, 'new Array(n) makes holes, which are not in the subset: start from [] and push');
  throw new Unsupported(e, `new ${name}(…) is not in the subset`);
}
