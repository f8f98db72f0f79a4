/**
 * Triton's ModelConfig schema as the text-format reader, writer and JSON conversion use it:
 * every message, field, number, type, enum and oneof, built once at load time from
 * `model_config.proto` (beside this file, the project's one description of the schema) through
 * protobufjs's parser. A field is added to the .proto once and works everywhere.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
export type ScalarType = 'string' | 'bool' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float' | 'double';

export type FieldType = { scalar: ScalarType } | { enum: string } | { message: string };

export interface FieldDescriptor {
  name: string;
  number: number;
  type: FieldType;
  repeated?: boolean;
  /** map<key, value> fields: written as repeated `{ key: … value: … }` entries in text format. */
  map?: { key: ScalarType };
  oneof?: string;
}

export interface MessageDescriptor {
  name: string;
  fields: FieldDescriptor[];
  byName: Map<string, FieldDescriptor>;
}

const SCALARS = new Set<string>(['string', 'bool', 'int32', 'uint32', 'int64', 'uint64', 'float', 'double']);

/** The proto file the bundle copies beside itself (scripts/bundle.mjs), as with the .hbs templates. */
export const MODEL_CONFIG_PROTO = join(__dirname, 'model_config.proto');

/** The parsed `inference` package of model_config.proto, every type resolved. */
export function modelConfigProtoPackage(): protobuf.Namespace {
  const { root } = protobuf.parse(readFileSync(MODEL_CONFIG_PROTO, 'utf8'), { keepCase: true });
  root.resolveAll();
  return root.lookup('inference') as protobuf.Namespace;
}

/** `.inference.ModelInstanceGroup.Kind` → `ModelInstanceGroup.Kind` */
function localName(t: protobuf.ReflectionObject): string {
  return t.fullName.replace(/^\.inference\./, '');
}

function fieldType(f: protobuf.Field): FieldType {
  if (f.resolvedType instanceof protobuf.Enum) return { enum: localName(f.resolvedType) };
  if (f.resolvedType instanceof protobuf.Type) return { message: localName(f.resolvedType) };
  if (!SCALARS.has(f.type))
    throw new Error(`model_config.proto: ${f.fullName} has unsupported type ${f.type}`);
  return { scalar: f.type as ScalarType };
}

function describe(
  ns: protobuf.Namespace,
  messages: Record<string, MessageDescriptor>,
  enums: Record<string, string[]>,
) {
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Enum) {
      // The reader and writer index enum values by number: keep them dense from 0.
      const names: string[] = [];
      for (const [name, n] of Object.entries(nested.values)) names[n] = name;
      if (names.length !== Object.keys(nested.values).length || names.includes(undefined as never))
        throw new Error(`model_config.proto: enum ${nested.fullName} must number its values 0, 1, 2, …`);
      enums[localName(nested)] = names;
    } else if (nested instanceof protobuf.Type) {
      const name = localName(nested);
      const fields = nested.fieldsArray.map((f): FieldDescriptor => {
        const d: FieldDescriptor = { name: f.name, number: f.id, type: fieldType(f) };
        if (f instanceof protobuf.MapField) d.map = { key: f.keyType as ScalarType };
        else if (f.repeated) d.repeated = true;
        if (f.partOf) d.oneof = f.partOf.name;
        return d;
      });
      messages[name] = { name, fields, byName: new Map(fields.map((f) => [f.name, f])) };
    }
    if (nested instanceof protobuf.Namespace) describe(nested, messages, enums);
  }
}

export const MESSAGES: Record<string, MessageDescriptor> = {};
export const ENUMS: Record<string, readonly string[]> = {};
describe(modelConfigProtoPackage(), MESSAGES, ENUMS as Record<string, string[]>);

export function messageDescriptor(name: string): MessageDescriptor {
  const d = MESSAGES[name];
  if (!d) throw new Error(`model_config.proto description has no message ${name}`);
  return d;
}

const mapEntryCache = new Map<FieldDescriptor, MessageDescriptor>();
/** The implicit `{ key, value }` message of a map field. */
export function mapEntryDescriptor(field: FieldDescriptor): MessageDescriptor {
  let d = mapEntryCache.get(field);
  if (!d) {
    const fields: FieldDescriptor[] = [
      { name: 'key', number: 1, type: { scalar: field.map!.key } },
      { name: 'value', number: 2, type: field.type },
    ];
    d = { name: `${field.name} entry`, fields, byName: new Map(fields.map((f) => [f.name, f])) };
    mapEntryCache.set(field, d);
  }
  return d;
}

/** lowerCamelCase JSON name of a proto field (`max_batch_size` → `maxBatchSize`). */
export function jsonName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
