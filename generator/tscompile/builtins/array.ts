/**
 * Array methods and Array.from: each row the JS method, the runtime function (arrays are shared
 * references, as in JS) and the result type. `SEQUENCE_METHODS` are the rows arrays and typed
 * arrays share (slice, fill, indexOf, includes): one row each, typed by the receiver's element.
 * Callback methods take an arrow function, emitted as a C++ lambda.
 */
import type { Expression } from 'ts-morph';
import { Node } from '../tsMorph.js';
import { Unsupported, type Value } from '../emit/unsupported.js';
import { staticUnsupported } from './math.js';
import {
  arrayOf,
  BOOLEAN,
  BuiltinTable,
  elementOf,
  ITEM,
  method,
  NUM,
  NUMBER,
  optional,
  optionalOf,
  STR,
  STRING,
  typeName,
  type BuiltinCall,
  type BuiltinRow,
  type TsType,
} from './table.js';

/** slice of an array is a plain array; of a typed array, the same typed array type. */
const sliced = ({ recv }: BuiltinCall): TsType =>
  recv.type.kind === 'array' ? arrayOf(recv.type.element) : recv.type;

export const SEQUENCE_METHODS: BuiltinRow[] = [
  { js: 'slice', emit: method('tsrt::slice', [optional(NUM), optional(NUM)], sliced) },
  { js: 'fill', emit: method('tsrt::fill', [ITEM], ({ recv }) => recv.type, { args: 1 }) },
  { js: 'indexOf', emit: method('tsrt::indexOf', [ITEM], NUMBER, { args: 1 }) },
  { js: 'includes', emit: method('tsrt::includes', [ITEM], BOOLEAN, { args: 1 }) },
];

const elem = (call: BuiltinCall): TsType => elementOf(call.recv.type);

/** A method taking a predicate (a callback returning a boolean). */
const predicate = (js: string, returns: (call: BuiltinCall) => TsType): BuiltinRow => ({
  js,
  emit: (call) => {
    const f = call.em.callback(call.args[0], call.node, 2);
    if (f.ret.kind !== 'boolean')
      throw new Unsupported(
        call.args[0]!,
        `the ${js} callback must return a boolean (truthiness is not in the subset)`,
      );
    return { code: `tsrt::${js}(${call.recv.code}, ${f.code})`, type: returns(call) };
  },
});

export const ARRAY_METHODS = new BuiltinTable(
  [
    { js: 'push', emit: push },
    { js: 'pop', emit: method('tsrt::pop', [], (c) => optionalOf(elem(c))) },
    { js: 'shift', emit: method('tsrt::shift', [], (c) => optionalOf(elem(c))) },
    { js: 'unshift', emit: method('tsrt::unshift', [ITEM], NUMBER, { args: 1 }) },
    ...SEQUENCE_METHODS,
    {
      js: 'join',
      emit: (call) => {
        const k = elem(call).kind;
        if (k === 'struct' || k === 'map' || k === 'set') return undefined;
        return method('tsrt::join', [optional(STR)], STRING)(call);
      },
    },
    { js: 'reverse', emit: method('tsrt::reverse', [], ({ recv }) => recv.type) },
    {
      js: 'concat',
      emit: method('tsrt::concat', [{ type: ({ recv }) => recv.type }], (c) => arrayOf(elem(c)), { args: 1 }),
    },
    {
      js: 'map',
      emit: ({ em, recv, args, node }) => {
        const f = em.callback(args[0], node, 2);
        return { code: `tsrt::map(${recv.code}, ${f.code})`, type: arrayOf(f.ret) };
      },
    },
    predicate('filter', (c) => arrayOf(elem(c))),
    predicate('some', () => BOOLEAN),
    predicate('every', () => BOOLEAN),
    predicate('findIndex', () => NUMBER),
    predicate('find', (c) => optionalOf(elem(c))),
    {
      js: 'forEach',
      emit: ({ em, recv, args, node }) => {
        const f = em.callback(args[0], node, 2);
        return { code: `tsrt::forEach(${recv.code}, ${f.code})`, type: { kind: 'void' } };
      },
    },
    { js: 'reduce', emit: reduce },
    { js: 'sort', emit: sort },
  ],
  ({ node, name, args }) =>
    new Unsupported(node.getExpression(), `array.${name}(${args.length ? '…' : ''}) is not in the subset`),
);

/** push(x) returns the new length; push(x, y…) pushes each in turn. */
function push({ em, recv, args, node }: BuiltinCall): Value {
  const item = (i: number): string => em.argAs(args[i], elementOf(recv.type), node);
  if (args.length === 1) return { code: `tsrt::push(${recv.code}, ${item(0)})`, type: NUMBER };
  return {
    code: `[&]() { double tsrt_n = 0; ${args.map((_, i) => `tsrt_n = tsrt::push(${recv.code}, ${item(i)});`).join(' ')} return tsrt_n; }()`,
    type: NUMBER,
  };
}

function reduce({ em, recv, args, node }: BuiltinCall): Value {
  const f = em.callback(args[0], node, 3);
  if (args.length === 1)
    return { code: `tsrt::reduce1(${recv.code}, ${f.code})`, type: elementOf(recv.type) };
  return { code: `tsrt::reduce(${recv.code}, ${f.code}, ${em.argAs(args[1], f.ret, node)})`, type: f.ret };
}

/** sort() orders by the elements' strings, as JS does; sort(cmp) takes a number comparator. */
function sort({ em, recv, args, node }: BuiltinCall): Value | undefined {
  if (args.length === 0) {
    const k = elementOf(recv.type).kind;
    if (k !== 'string' && k !== 'number') return undefined;
    return { code: `tsrt::sortDefault(${recv.code})`, type: recv.type };
  }
  const f = em.callback(args[0], node, 2);
  if (f.ret.kind !== 'number') throw new Unsupported(args[0]!, 'the sort comparator must return a number');
  return { code: `tsrt::sort(${recv.code}, ${f.code})`, type: recv.type };
}

/** Array.from of a Set, a typed array, a string (code points), an array, or m.keys()/m.values(). */
function arrayFrom({ em, args, node }: BuiltinCall): Value | undefined {
  if (args.length !== 1) return undefined;
  const a = args[0]!;
  const type = em.typeOf(node);
  const entries = collectionEntries(em, a, type);
  if (entries) return entries;
  const v = em.expr(a);
  if (v.type.kind === 'set') return { code: `tsrt::setValues(${v.code})`, type };
  if (v.type.kind === 'typed') return { code: `tsrt::toArray(${v.code})`, type };
  if (v.type.kind === 'string') return { code: `tsrt::codePoints(${v.code})`, type };
  if (v.type.kind === 'array') return { code: `tsrt::slice(${v.code})`, type };
  throw new Unsupported(a, `Array.from of a ${typeName(v.type)} is not in the subset`);
}

/** Array.from(m.keys()) / (m.values()) / (s.values()): the live entries, without an iterator. */
function collectionEntries(em: BuiltinCall['em'], a: Expression, type: TsType): Value | undefined {
  if (
    !Node.isCallExpression(a) ||
    !Node.isPropertyAccessExpression(a.getExpression()) ||
    a.getArguments().length
  )
    return undefined;
  const pa = a.getExpression() as import('ts-morph').PropertyAccessExpression;
  const recv = em.expr(pa.getExpression());
  const m = pa.getName();
  if (recv.type.kind === 'map' && (m === 'keys' || m === 'values'))
    return { code: `tsrt::map${m === 'keys' ? 'Keys' : 'Values'}(${recv.code})`, type };
  if (recv.type.kind === 'set' && (m === 'keys' || m === 'values'))
    return { code: `tsrt::setValues(${recv.code})`, type };
  return undefined;
}

export const ARRAY_STATICS = new BuiltinTable([{ js: 'from', emit: arrayFrom }], staticUnsupported('Array'));
