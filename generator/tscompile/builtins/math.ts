/**
 * Math, Number and the global number functions: each row the JS name, the runtime (or <cmath>)
 * function it becomes and its result type. Math functions whose last bit V8 and the C++ library
 * round differently are refused (a compiled step must answer as Node does), as is Math.random.
 */
import type { Identifier, PropertyAccessExpression } from 'ts-morph';
import { cppNumberLiteral } from '../cppText.js';
import { Unsupported, type Value } from '../emit/unsupported.js';
import {
  BOOLEAN,
  BuiltinTable,
  func,
  method,
  NUM,
  NUMBER,
  numberList,
  orElse,
  refuse,
  STRING,
  typeName,
  type BuiltinRow,
} from './table.js';

const unary = (js: string, runtime: string): BuiltinRow => ({
  js,
  emit: func(runtime, [NUM], NUMBER, { args: 1 }),
});

const INEXACT = [
  'log', 'log2', 'log10', 'log1p', 'expm1', 'pow', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan',
  'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'cbrt', 'hypot',
]; // prettier-ignore

export const MATH = new BuiltinTable(
  [
    unary('floor', 'std::floor'),
    unary('ceil', 'std::ceil'),
    unary('trunc', 'std::trunc'),
    unary('abs', 'std::fabs'),
    unary('sqrt', 'std::sqrt'),
    unary('exp', 'tsrt::mathExp'),
    unary('round', 'tsrt::mathRound'),
    unary('sign', 'tsrt::mathSign'),
    unary('fround', 'tsrt::fround'),
    { js: 'max', emit: numberList('tsrt::mathMax', NUMBER) },
    { js: 'min', emit: numberList('tsrt::mathMin', NUMBER) },
    ...INEXACT.map((js) => ({
      js,
      emit: refuse(
        (m) =>
          `Math.${m} is not in the subset: V8 and the C++ library round it differently, so results could differ from Node in the last bit`,
      ),
    })),
    {
      js: 'random',
      emit: refuse(
        () => 'Math.random is not in the subset: a step must give the same answer for the same input',
      ),
    },
  ],
  staticUnsupported('Math'),
);

/** Number.isInteger & co.: false for anything but a number, as JS answers. */
const numberTest = (js: string, test: (x: string) => string): BuiltinRow => ({
  js,
  emit: ({ em, args }) => {
    if (args.length !== 1) return undefined;
    const v = em.expr(args[0]!);
    if (v.type.kind !== 'number') return { code: 'false', type: BOOLEAN };
    return { code: test(v.code), type: BOOLEAN };
  },
});

export const NUMBER_STATICS = new BuiltinTable(
  [
    numberTest('isInteger', (x) => `(std::isfinite(${x}) && std::trunc(${x}) == ${x})`),
    numberTest('isFinite', (x) => `std::isfinite(${x})`),
    numberTest('isNaN', (x) => `std::isnan(${x})`),
    numberTest(
      'isSafeInteger',
      (x) => `(std::isfinite(${x}) && std::trunc(${x}) == ${x} && std::fabs(${x}) <= 9007199254740991.0)`,
    ),
  ],
  staticUnsupported('Number'),
);

/** n.toFixed(d), n.toString(); b.toString(). */
export const NUMBER_METHODS = new BuiltinTable(
  [
    { js: 'toFixed', emit: method('tsrt::toFixed', [orElse(NUM, '0.0')], STRING) },
    { js: 'toString', emit: method('tsrt::toStr', [], STRING, { args: 0 }) },
  ],
  valueMethodUnsupported,
);
export const BOOLEAN_METHODS = new BuiltinTable(
  [{ js: 'toString', emit: method('tsrt::toStr', [], STRING, { args: 0 }) }],
  valueMethodUnsupported,
);

/** Number(x), isNaN(x), isFinite(x) as global functions. */
export const NUMBER_GLOBALS: BuiltinRow[] = [
  {
    js: 'Number',
    emit: ({ em, args }) => {
      if (args.length !== 1) return undefined;
      const v = em.expr(args[0]!);
      if (v.type.kind === 'number') return v;
      if (v.type.kind === 'string') return { code: `tsrt::stringToNumber(${v.code})`, type: NUMBER };
      if (v.type.kind === 'boolean') return { code: `(${v.code} ? 1.0 : 0.0)`, type: NUMBER };
      throw new Unsupported(args[0]!, `Number() of a ${typeName(v.type)} is not in the subset`);
    },
  },
  { js: 'isNaN', emit: func('std::isnan', [NUM], BOOLEAN, { args: 1 }) },
  { js: 'isFinite', emit: func('std::isfinite', [NUM], BOOLEAN, { args: 1 }) },
  ...['parseInt', 'parseFloat'].map((js) => ({
    js,
    emit: refuse((name) => `${name} is not in the subset: use Number(s) (and Math.trunc)`),
  })),
];

const MATH_CONSTANTS = ['PI', 'E', 'LN2', 'LN10', 'SQRT2'] as const;
const NUMBER_CONSTANTS = [
  'MAX_SAFE_INTEGER',
  'MIN_SAFE_INTEGER',
  'EPSILON',
  'MAX_VALUE',
  'MIN_VALUE',
  'POSITIVE_INFINITY',
  'NEGATIVE_INFINITY',
  'NaN',
] as const;

/** Math.PI, Number.EPSILON…: the value itself, as a C++ literal. */
export function globalConstant(g: string, name: string, e: PropertyAccessExpression): Value {
  if (g === 'Math' && (MATH_CONSTANTS as readonly string[]).includes(name))
    return { code: cppNumberLiteral(Math[name as (typeof MATH_CONSTANTS)[number]]), type: NUMBER };
  if (g === 'Number' && (NUMBER_CONSTANTS as readonly string[]).includes(name))
    return { code: cppNumberLiteral(Number[name as 'EPSILON']), type: NUMBER };
  throw new Unsupported(e, `${g}.${name} is not in the subset`);
}

/** `G.name is not in the subset`, for every table of static functions. */
export function staticUnsupported(g: string) {
  return ({ node, name }: { node: import('ts-morph').CallExpression; name: string }): Unsupported =>
    new Unsupported(node.getExpression(), `${g}.${name} is not in the subset`);
}

function valueMethodUnsupported({
  node,
  recv,
  name,
  args,
}: {
  node: import('ts-morph').CallExpression;
  recv: Value;
  name: string;
  args: unknown[];
}): Unsupported {
  const callee = node.getExpression() as PropertyAccessExpression;
  return new Unsupported(
    callee.getNameNode() as Identifier,
    `${typeName(recv.type)}.${name}(${args.length ? '…' : ''}) is not in the subset`,
  );
}
export { valueMethodUnsupported };

/** Receivers without methods in the subset (objects, optionals…). */
export const NO_METHODS = new BuiltinTable([], valueMethodUnsupported);
