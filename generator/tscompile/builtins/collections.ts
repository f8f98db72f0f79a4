/**
 * Map and Set: their methods (each row the JS method, the runtime type's member it calls and the
 * result type) and their constructors. Keys compare by SameValueZero and iterate in insertion
 * order, in the runtime; keys()/values()/entries() are in the subset inside for-of and
 * Array.from only (statements.ts, array.ts), where they walk the live entries.
 */
import type { Expression } from 'ts-morph';
import { cppType } from '../types.js';
import { Unsupported, type Value } from '../emit/unsupported.js';
import type { Emitter } from '../emit/emitter.js';
import {
  arrayOf,
  BOOLEAN,
  BuiltinTable,
  member,
  optionalOf,
  typeName,
  type BuiltinCall,
  type Param,
  type TsType,
} from './table.js';

type Collection = Extract<TsType, { kind: 'map' | 'set' }>;
const collection = (c: BuiltinCall): Collection => c.recv.type as Collection;
/** The key: a Map's key type, a Set's element type. */
const KEY: Param = {
  type: (c) =>
    collection(c).kind === 'map'
      ? (collection(c) as { key: TsType }).key
      : (collection(c) as { element: TsType }).element,
};
const VALUE: Param = { type: (c) => (collection(c) as Extract<TsType, { kind: 'map' }>).value };
const onlyFor = (kind: 'map' | 'set', emit: (c: BuiltinCall) => Value | undefined) => (c: BuiltinCall) =>
  collection(c).kind === kind ? emit(c) : undefined;

export const COLLECTION_METHODS = new BuiltinTable(
  [
    { js: 'has', emit: member('has', [KEY], BOOLEAN) },
    { js: 'delete', emit: member('remove', [KEY], BOOLEAN) },
    { js: 'clear', emit: ({ recv }) => ({ code: `${recv.code}.clear()`, type: { kind: 'void' } }) },
    {
      js: 'get',
      emit: onlyFor(
        'map',
        member('get', [KEY], (c) => optionalOf((collection(c) as { value: TsType }).value)),
      ),
    },
    { js: 'set', emit: onlyFor('map', member('set', [KEY, VALUE], collection)) },
    { js: 'add', emit: onlyFor('set', member('add', [KEY], collection)) },
    ...['keys', 'values', 'entries'].map((js) => ({
      js,
      emit: ({ node, name }: BuiltinCall): Value => {
        throw new Unsupported(node, `${name}() is in the subset inside for-of or Array.from(…) only`);
      },
    })),
  ],
  ({ node, recv, name }) =>
    new Unsupported(node.getExpression(), `${typeName(recv.type)}.${name} is not in the subset`),
);

/** new Map(), new Set(), new Set(array); undefined for other forms. */
export function newCollection(em: Emitter, type: TsType, args: Expression[], at: Node): Value | undefined {
  if (type.kind === 'map' && args.length === 0) return { code: `${cppType(type)}()`, type };
  if (type.kind !== 'set') return undefined;
  if (args.length === 0) return { code: `${cppType(type)}()`, type };
  if (args.length === 1)
    return { code: `${cppType(type)}(${em.argAs(args[0], arrayOf(type.element), at)})`, type };
  return undefined;
}
type Node = import('ts-morph').Node;
