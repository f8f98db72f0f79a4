/**
 * Typed arrays (Float32Array, Int32Array…): their methods — the rows they share with arrays
 * (slice, fill, indexOf, includes) and join — `X.from(numbers)` and `new X(length | numbers)`.
 * Element stores convert as JS does (fround, ToInt32 and friends), in the runtime.
 */
import type { Expression } from 'ts-morph';
import { cppType, TYPED_ARRAYS } from '../types.js';
import { Unsupported, type Value } from '../emit/unsupported.js';
import type { Emitter } from '../emit/emitter.js';
import { SEQUENCE_METHODS } from './array.js';
import { staticUnsupported } from './math.js';
import {
  arrayOf,
  BuiltinTable,
  method,
  NUMBER,
  optional,
  STR,
  STRING,
  typeName,
  type TsType,
} from './table.js';

export const TYPED_METHODS = new BuiltinTable(
  [...SEQUENCE_METHODS, { js: 'join', emit: method('tsrt::join', [optional(STR)], STRING) }],
  ({ node, recv, name }) =>
    new Unsupported(node.getExpression(), `${typeName(recv.type)}.${name} is not in the subset`),
);

/** Float32Array.from(numbers) and the like, one table per typed array name. */
export function typedStatics(g: string): BuiltinTable | undefined {
  if (!Object.hasOwn(TYPED_ARRAYS, g)) return undefined;
  return new BuiltinTable(
    [
      {
        js: 'from',
        emit: ({ em, args, node }) => {
          if (args.length !== 1) return undefined;
          const type = em.typeOf(node);
          return { code: `${cppType(type)}(${em.argAs(args[0], arrayOf(NUMBER), node)})`, type };
        },
      },
    ],
    staticUnsupported(g),
  );
}

/** new Float32Array(n) (zeros) or new Float32Array(numbers); undefined for other forms. */
export function newTypedArray(em: Emitter, type: TsType, args: Expression[]): Value | undefined {
  if (type.kind !== 'typed' || args.length !== 1) return undefined;
  const v = em.expr(args[0]!);
  if (v.type.kind === 'number' || v.type.kind === 'array')
    return { code: `${cppType(type)}(${v.code})`, type };
  return undefined;
}
