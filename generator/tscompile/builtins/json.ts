/**
 * JSON.stringify for the shapes the subset has (objects print their fields in declaration
 * order through generated functions, in the runtime); JSON.parse is refused: a step's values
 * arrive as typed inputs.
 */
import type { Node } from 'ts-morph';
import type { TsType } from '../types.js';
import { Unsupported } from '../emit/unsupported.js';
import type { Emitter } from '../emit/emitter.js';
import { BuiltinTable, STRING } from './table.js';

export const JSON_STATICS = new BuiltinTable(
  [
    {
      js: 'stringify',
      emit: ({ em, args, node }) => {
        if (args.length !== 1)
          throw new Unsupported(
            node,
            'JSON.stringify takes one argument in the subset (no replacer or indentation)',
          );
        const v = em.expr(args[0]!);
        checkJson(em, v.type, args[0]!);
        return { code: `tsrt::jsonStringify(${v.code})`, type: STRING };
      },
    },
  ],
  ({ node }) =>
    new Unsupported(
      node.getExpression(),
      'JSON.parse is not in the subset: declare the values as typed inputs',
    ),
);

/** What JSON.stringify would print differently from the runtime (Maps and Sets print {}), refused. */
function checkJson(em: Emitter, t: TsType, at: Node): void {
  if (t.kind === 'map' || t.kind === 'set')
    throw new Unsupported(
      at,
      `JSON.stringify of a ${t.kind === 'map' ? 'Map' : 'Set'} prints {}: convert it with Array.from first`,
    );
  if (t.kind === 'optional' || t.kind === 'void')
    throw new Unsupported(at, 'JSON.stringify of a value that may be undefined is not in the subset');
  if (t.kind === 'array') checkJson(em, t.element, at);
  if (t.kind === 'struct') for (const f of em.structs.get(t.name)!) checkJson(em, f.type, at);
}
