/**
 * The types a compiled TypeScript module may use, as the compiler sees them, and their C++
 * spelling in the runtime (`backends/tsrt/include/triton_studio/ts_runtime.h`).
 */
import { cppName } from './cppText.js';
export const TYPED_ARRAYS = {
  Float32Array: 'float',
  Float64Array: 'double',
  Int8Array: 'int8_t',
  Uint8Array: 'uint8_t',
  Int16Array: 'int16_t',
  Uint16Array: 'uint16_t',
  Int32Array: 'int32_t',
  Uint32Array: 'uint32_t',
} as const;
export type TypedArrayName = keyof typeof TYPED_ARRAYS;

export interface StructField {
  name: string;
  type: TsType;
  /** JSDoc tags on the field (`@dtype INT64`, `@dims 2`), for step ports. */
  tags: Record<string, string>;
}

export type TsType =
  | { kind: 'string' }
  | { kind: 'number' }
  | { kind: 'boolean' }
  | { kind: 'void' }
  | { kind: 'array'; element: TsType; readonly: boolean }
  | { kind: 'typed'; name: TypedArrayName }
  | { kind: 'struct'; name: string }
  | { kind: 'map'; key: TsType; value: TsType }
  | { kind: 'set'; element: TsType }
  /** `T | undefined`: only as the result of a method that may return undefined (pop, find, get). */
  | { kind: 'optional'; inner: TsType };

export const STRING: TsType = { kind: 'string' };
export const NUMBER: TsType = { kind: 'number' };
export const BOOLEAN: TsType = { kind: 'boolean' };
export const VOID: TsType = { kind: 'void' };

export function typeName(t: TsType): string {
  switch (t.kind) {
    case 'array':
      return `${t.readonly ? 'readonly ' : ''}${typeName(t.element)}[]`;
    case 'typed':
      return t.name;
    case 'struct':
      return t.name;
    case 'map':
      return `Map<${typeName(t.key)}, ${typeName(t.value)}>`;
    case 'set':
      return `Set<${typeName(t.element)}>`;
    case 'optional':
      return `${typeName(t.inner)} | undefined`;
    default:
      return t.kind;
  }
}

export function sameType(a: TsType, b: TsType): boolean {
  return cppType(a) === cppType(b);
}

export function cppType(t: TsType): string {
  switch (t.kind) {
    case 'string':
      return 'tsrt::Str';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'void':
      return 'void';
    case 'array':
      return `tsrt::Array<${cppType(t.element)}>`;
    case 'typed':
      return `tsrt::TypedArray<${TYPED_ARRAYS[t.name]}>`;
    case 'struct':
      return `std::shared_ptr<${cppName(t.name)}>`;
    case 'map':
      return `tsrt::Map<${cppType(t.key)}, ${cppType(t.value)}>`;
    case 'set':
      return `tsrt::Set<${cppType(t.element)}>`;
    case 'optional':
      return `std::optional<${cppType(t.inner)}>`;
  }
}

/** Keys of Map and Set: the ones whose JS equality (SameValueZero) the runtime reproduces. */
export function isKeyType(t: TsType): boolean {
  return t.kind === 'string' || t.kind === 'number' || t.kind === 'boolean';
}
