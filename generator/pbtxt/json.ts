/**
 * ModelConfig ⇄ protobuf JSON (what Triton's repository API takes as the `config` load
 * parameter, and what `v2/models/M/config` returns). Output uses proto field names, which
 * Triton's JSON parser accepts; input accepts proto or lowerCamelCase names, 64-bit integers as
 * numbers or strings, and is checked field by field against the ModelConfig description.
 */
import {
  ENUMS,
  jsonName,
  messageDescriptor,
  type FieldDescriptor,
  type MessageDescriptor,
} from './descriptor.js';
import type { ModelConfig, PbMessage, PbValue } from './types.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export class ModelConfigJsonError extends Error {}

/** A JSON-safe copy of `config` in protobuf JSON form (bigints become strings, as proto JSON allows). */
export function modelConfigToJson(
  config: ModelConfig,
  messageName = 'ModelConfig',
): { [key: string]: JsonValue } {
  return toJson(config, messageDescriptor(messageName), 'config') as { [key: string]: JsonValue };
}

function toJson(msg: PbMessage, desc: MessageDescriptor, path: string): JsonValue {
  const out: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(msg)) {
    if (value === undefined) continue;
    const field = desc.byName.get(key);
    if (!field) throw new ModelConfigJsonError(`${path}: ${desc.name} has no field "${key}"`);
    out[key] = fieldToJson(field, value, `${path}.${key}`);
  }
  return out;
}

function fieldToJson(field: FieldDescriptor, value: PbValue, path: string): JsonValue {
  if (field.map) {
    const obj: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value as Record<string, PbValue>))
      obj[k] = singleToJson(field, v, `${path}[${k}]`);
    return obj;
  }
  if (field.repeated) return (value as PbValue[]).map((v, i) => singleToJson(field, v, `${path}[${i}]`));
  return singleToJson(field, value, path);
}

function singleToJson(field: FieldDescriptor, v: PbValue, path: string): JsonValue {
  if ('message' in field.type) return toJson(v as PbMessage, messageDescriptor(field.type.message), path);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && !Number.isFinite(v))
    return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  return v as JsonValue;
}

/** Reads protobuf JSON into the pbtxt value model, rejecting unknown fields and wrong types. */
export function modelConfigFromJson(json: unknown, messageName = 'ModelConfig'): ModelConfig {
  return fromJson(json, messageDescriptor(messageName), 'config') as ModelConfig;
}

const camelIndex = new Map<MessageDescriptor, Map<string, FieldDescriptor>>();
function lookup(desc: MessageDescriptor, key: string): FieldDescriptor | undefined {
  let idx = camelIndex.get(desc);
  if (!idx) {
    idx = new Map(desc.fields.map((f) => [jsonName(f.name), f]));
    camelIndex.set(desc, idx);
  }
  return desc.byName.get(key) ?? idx.get(key);
}

function fromJson(json: unknown, desc: MessageDescriptor, path: string): PbMessage {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ModelConfigJsonError(`${path} must be an object (${desc.name})`);
  }
  const out: PbMessage = {};
  for (const [key, value] of Object.entries(json)) {
    const field = lookup(desc, key);
    if (!field) throw new ModelConfigJsonError(`${path}: ${desc.name} has no field "${key}"`);
    if (value === null) continue;
    const where = `${path}.${field.name}`;
    if (field.map) {
      if (typeof value !== 'object' || Array.isArray(value))
        throw new ModelConfigJsonError(`${where} must be an object`);
      const map: Record<string, PbValue> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>))
        map[k] = singleFromJson(field, v, `${where}[${k}]`);
      out[field.name] = map;
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new ModelConfigJsonError(`${where} must be a list`);
      out[field.name] = value.map((v, i) => singleFromJson(field, v, `${where}[${i}]`));
    } else out[field.name] = singleFromJson(field, value, where);
  }
  return out;
}

function singleFromJson(field: FieldDescriptor, v: unknown, path: string): PbValue {
  if ('message' in field.type) return fromJson(v, messageDescriptor(field.type.message), path);
  if ('enum' in field.type) {
    const values = ENUMS[field.type.enum]!;
    if (typeof v === 'string' && values.includes(v)) return v;
    if (typeof v === 'number' && values[v] !== undefined) return values[v]!;
    throw new ModelConfigJsonError(`${path}: ${JSON.stringify(v)} is not a ${field.type.enum} value`);
  }
  const t = field.type.scalar;
  if (t === 'string') {
    if (typeof v !== 'string') throw new ModelConfigJsonError(`${path} must be a string`);
    return v;
  }
  if (t === 'bool') {
    if (typeof v !== 'boolean') throw new ModelConfigJsonError(`${path} must be true or false`);
    return v;
  }
  if (t === 'float' || t === 'double') {
    if (typeof v === 'number') return v;
    if (v === 'NaN') return NaN;
    if (v === 'Infinity') return Infinity;
    if (v === '-Infinity') return -Infinity;
    if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
    throw new ModelConfigJsonError(`${path} must be a number`);
  }
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    const b = BigInt(v);
    return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(b) : b;
  }
  throw new ModelConfigJsonError(`${path} must be an integer (${t})`);
}
