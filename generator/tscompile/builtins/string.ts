/**
 * String methods and statics: each row the JS method, the runtime function (UTF-16 semantics, as
 * JS counts) and the result type. Methods that need regular expressions or locale data are
 * refused with what to write instead.
 */
import { Unsupported } from '../emit/unsupported.js';
import { staticUnsupported } from './math.js';
import {
  arrayOf,
  BOOLEAN,
  BuiltinTable,
  method,
  NUM,
  NUMBER,
  numberList,
  optional,
  orElse,
  refuse,
  STR,
  STRING,
  stringOnly,
  type BuiltinRow,
} from './table.js';

const S = STRING;
const same = (js: string, params: Parameters<typeof method>[1], returns = S): BuiltinRow => ({
  js,
  emit: method(`tsrt::${js}`, params, returns),
});

export const STRING_METHODS = new BuiltinTable(
  [
    { js: 'charAt', emit: method('tsrt::charAt', [orElse(NUM, '0.0')], S) },
    { js: 'charCodeAt', emit: method('tsrt::charCodeAt', [orElse(NUM, '0.0')], NUMBER) },
    same('indexOf', [STR, optional(NUM)], NUMBER),
    { js: 'lastIndexOf', emit: method('tsrt::lastIndexOf', [STR], NUMBER, { maxArgs: 1 }) },
    same('includes', [STR, optional(NUM)], BOOLEAN),
    same('startsWith', [STR, optional(NUM)], BOOLEAN),
    same('endsWith', [STR, optional(NUM)], BOOLEAN),
    same('slice', [orElse(NUM, '0.0'), optional(NUM)]),
    same('substring', [NUM, optional(NUM)]),
    same('toUpperCase', []),
    same('toLowerCase', []),
    same('trim', []),
    same('trimStart', []),
    same('trimEnd', []),
    same('split', [stringOnly('split'), optional(NUM)], arrayOf(S)),
    same('replace', [stringOnly('replace'), stringOnly('replace')]),
    same('replaceAll', [stringOnly('replaceAll'), stringOnly('replaceAll')]),
    same('repeat', [NUM]),
    same('padStart', [NUM, optional(STR)]),
    same('padEnd', [NUM, optional(STR)]),
    {
      js: 'concat',
      emit: ({ em, recv, args, node }) => ({
        code: `(${[recv.code, ...args.map((a) => em.argAs(a, S, node))].join(' + ')})`,
        type: S,
      }),
    },
    { js: 'toString', emit: ({ recv }) => recv },
    ...['localeCompare', 'normalize', 'toLocaleUpperCase', 'toLocaleLowerCase'].map((js) => ({
      js,
      emit: refuse(
        (m) => `${m} depends on locale data the compiled step does not carry: compare with < or === instead`,
      ),
    })),
    ...['match', 'matchAll', 'search'].map((js) => ({
      js,
      emit: refuse(
        (m) => `${m} needs regular expressions, which are not in the subset: use indexOf or includes`,
      ),
    })),
  ],
  ({ node, name }) => new Unsupported(node.getExpression(), `string.${name} is not in the subset`),
);

export const STRING_STATICS = new BuiltinTable(
  [
    { js: 'fromCharCode', emit: numberList('tsrt::fromCharCode', S) },
    { js: 'fromCodePoint', emit: numberList('tsrt::fromCodePoint', S) },
  ],
  staticUnsupported('String'),
);

/** String(x) as a global function: the value's string form (JS's ToString). */
export const STRING_GLOBALS: BuiltinRow[] = [
  {
    js: 'String',
    emit: ({ em, args }) =>
      args.length === 1 ? { code: em.toStr(em.expr(args[0]!), args[0]!), type: S } : undefined,
  },
];
