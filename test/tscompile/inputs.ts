/**
 * The inputs of the differential harness: fast-check arbitraries derived from a program's
 * parameter types, their encoding for the driver's stdin, and the canonical text both Node and
 * the driver print a result in.
 */
import fc from 'fast-check';
import type { StructField, TsType } from '../../generator/tscompile/types.js';

/** Strings that exercise UTF-16: astral characters, combining marks, case specials, markers. */
const INTERESTING = [
  'a',
  'B',
  ' ',
  '\n',
  '\t',
  'ß',
  'İ',
  'ı',
  'Σ',
  'σ',
  'ς',
  'ﬁ',
  'ǅ',
  'é',
  'e\u0301',
  '😀',
  '𝒜',
  '\u0301',
  '\ud800',
  '\udc00',
  '</s>',
  '[INST]',
  '#',
  '###',
  '$&',
  '$$',
  '0',
  '1',
  '.',
  ',',
  '\u00a0',
  '\u2028',
  '\ufeff',
  'Ω',
];

const unitString = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  maxLength: 12,
});

export function stringArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...INTERESTING), maxLength: 16 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 1, arbitrary: unitString },
    { weight: 1, arbitrary: fc.string({ maxLength: 16 }) },
    { weight: 1, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.string({ unit: fc.constantFrom(...INTERESTING), minLength: 500, maxLength: 3000 }),
    },
  );
}

export function numberArbitrary(): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.double() },
    { weight: 3, arbitrary: fc.integer({ min: -20, max: 20 }) },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: fc.double({ min: -1000, max: 1000, noNaN: true }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        0,
        -0,
        NaN,
        Infinity,
        -Infinity,
        0.5,
        -0.5,
        1.5,
        2.5,
        1.005,
        1e21,
        1e-7,
        123.456,
        2 ** 31,
        2 ** 32,
        -(2 ** 31),
        2 ** 53,
      ),
    },
  );
}

export function arbitrary(t: TsType, structs: Map<string, StructField[]>): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case 'string':
      return stringArbitrary();
    case 'number':
      return numberArbitrary();
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitrary(t.element, structs), { maxLength: 12 });
    case 'typed': {
      const ctor = globalThis[t.name];
      return fc.array(numberArbitrary(), { maxLength: 12 }).map((xs) => ctor.from(xs));
    }
    case 'struct': {
      const fields = structs.get(t.name)!;
      return fc
        .tuple(...fields.map((f) => arbitrary(f.type, structs)))
        .map((vals) => Object.fromEntries(fields.map((f, i) => [f.name, vals[i]])));
    }
    case 'map':
      return fc
        .array(fc.tuple(arbitrary(t.key, structs), arbitrary(t.value, structs)), { maxLength: 10 })
        .map((es) => new Map(es));
    case 'set':
      return fc.array(arbitrary(t.element, structs), { maxLength: 10 }).map((es) => new Set(es));
    default:
      throw new Error(`no inputs for ${t.kind}`);
  }
}

function hexDouble(v: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(v);
  return b.readBigUInt64LE().toString(16);
}

export function encodeInput(v: unknown, t: TsType, structs: Map<string, StructField[]>): string {
  switch (t.kind) {
    case 'string': {
      const s = v as string;
      let hex = '';
      for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0');
      return `${s.length}:${hex}`;
    }
    case 'number':
      return hexDouble(v as number);
    case 'boolean':
      return v ? '1' : '0';
    case 'array':
      return [
        (v as unknown[]).length,
        ...(v as unknown[]).map((x) => encodeInput(x, t.element, structs)),
      ].join(' ');
    case 'typed':
      return [(v as Float64Array).length, ...Array.from(v as Float64Array, hexDouble)].join(' ');
    case 'struct':
      return structs
        .get(t.name)!
        .map((f) => encodeInput((v as Record<string, unknown>)[f.name], f.type, structs))
        .join(' ');
    case 'map':
      return [
        (v as Map<unknown, unknown>).size,
        ...[...(v as Map<unknown, unknown>)].map(
          ([k, x]) => `${encodeInput(k, t.key, structs)} ${encodeInput(x, t.value, structs)}`,
        ),
      ].join(' ');
    case 'set':
      return [
        (v as Set<unknown>).size,
        ...[...(v as Set<unknown>)].map((x) => encodeInput(x, t.element, structs)),
      ].join(' ');
    default:
      throw new Error(`cannot encode ${t.kind}`);
  }
}

/** The canonical text both sides print: JSON-quoted strings, -0 kept, fields in declaration order. */
export function canonical(v: unknown, t: TsType, structs: Map<string, StructField[]>): string {
  switch (t.kind) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Object.is(v, -0) ? '-0' : String(v);
    case 'boolean':
      return String(v);
    case 'void':
      return 'undefined';
    case 'array':
      return `[${(v as unknown[]).map((x) => canonical(x, t.element, structs)).join(',')}]`;
    case 'typed':
      return `[${Array.from(v as Float64Array, (x) => canonical(x, { kind: 'number' }, structs)).join(',')}]`;
    case 'struct':
      return `{${structs
        .get(t.name)!
        .map((f) => `${f.name}:${canonical((v as Record<string, unknown>)[f.name], f.type, structs)}`)
        .join(',')}}`;
    case 'map':
      return `Map{${[...(v as Map<unknown, unknown>)].map(([k, x]) => `${canonical(k, t.key, structs)}=>${canonical(x, t.value, structs)}`).join(',')}}`;
    case 'set':
      return `Set{${[...(v as Set<unknown>)].map((x) => canonical(x, t.element, structs)).join(',')}}`;
    default:
      throw new Error(`cannot print ${t.kind}`);
  }
}

export function cloneInput(v: unknown): unknown {
  return structuredClone(v);
}
