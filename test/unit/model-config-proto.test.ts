/**
 * model_config.proto is the one description of Triton's ModelConfig. The pbtxt descriptor is
 * built from it at load time; these tests hold the rest to it: the TypeScript shapes the gRPC
 * client and the pbtxt module declare name proto fields with the types those fields decode to.
 * (A field missing from the .proto cannot be read or written at all: the pbtxt reader rejects it.)
 */
import { join, resolve } from 'node:path';
import protobuf from 'protobufjs';
import { Project, type Type as TsType } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { MESSAGES, modelConfigProtoPackage } from '../../generator/pbtxt/descriptor.js';

const ROOT = resolve(__dirname, '../..');
const inference = modelConfigProtoPackage();
const protoType = (name: string) => inference.lookupType(name);

const project = new Project({ compilerOptions: { strict: true }, skipFileDependencyResolution: true });
function declared(file: string, name: string): TsType {
  return project.addSourceFileAtPath(join(ROOT, file)).getInterfaceOrThrow(name).getType();
}

const NUMERIC = new Set(['int32', 'uint32', 'int64', 'uint64', 'float', 'double']);

/** Mismatches between a TS object type and a proto message, one line each. */
function disagreements(ts: TsType, message: protobuf.Type, where: string): string[] {
  const out: string[] = [];
  for (const prop of ts.getProperties()) {
    const name = prop.getName();
    const propType = prop.getTypeAtLocation(project.getSourceFiles()[0]!).getNonNullableType();
    const field = message.fields[name];
    if (!field) {
      // proto-loader's `oneofs: true` adds a virtual field naming the member that is set.
      const oneof = message.oneofs?.[name];
      const members = propType.getUnionTypes().map((t) => t.getLiteralValue());
      if (!oneof) out.push(`${where}.${name}: ${message.name} has no such field`);
      else if (members.some((m) => !oneof.oneof.includes(String(m))))
        out.push(`${where}.${name}: not the members of oneof ${name} (${oneof.oneof.join(', ')})`);
      continue;
    }
    out.push(...fieldDisagreements(propType, field, `${where}.${name}`));
  }
  return out;
}

function fieldDisagreements(ts: TsType, field: protobuf.Field, where: string): string[] {
  if (field instanceof protobuf.MapField) {
    const value = ts.getStringIndexType();
    return value
      ? single(value.getNonNullableType(), field, where)
      : [`${where}: a map, declared ${ts.getText()}`];
  }
  if (field.repeated) {
    const element = ts.getArrayElementType();
    return element ? single(element, field, where) : [`${where}: repeated, declared ${ts.getText()}`];
  }
  return single(ts, field, where);
}

function single(ts: TsType, field: protobuf.Field, where: string): string[] {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) {
    return ts.isObject()
      ? disagreements(ts, t, where)
      : [`${where}: message ${t.name}, declared ${ts.getText()}`];
  }
  const parts = ts.isUnion() && !ts.isBoolean() ? ts.getUnionTypes() : [ts];
  const ok = parts.every((p) =>
    t instanceof protobuf.Enum || field.type === 'string'
      ? p.isString() || p.isStringLiteral()
      : field.type === 'bool'
        ? p.isBoolean() || p.isBooleanLiteral()
        : NUMERIC.has(field.type) && (p.isNumber() || (p.isBigInt() && field.type.endsWith('64'))),
  );
  return ok ? [] : [`${where}: ${field.type}, declared ${ts.getText()}`];
}

describe('model_config.proto is the one description of ModelConfig', () => {
  it('the pbtxt descriptor has every message of the .proto, fields in declaration order', () => {
    for (const [name, desc] of Object.entries(MESSAGES)) {
      expect(desc.fields.map((f) => [f.name, f.number])).toEqual(
        protoType(name).fieldsArray.map((f) => [f.name, f.id]),
      );
    }
    expect(Object.keys(MESSAGES)).toContain('ModelConfig');
  });

  it.each([
    ['client/grpc/types.ts', 'ModelConfig', 'ModelConfig'],
    ['client/grpc/types.ts', 'ModelInputConfig', 'ModelInput'],
    ['client/grpc/types.ts', 'ModelTensorConfig', 'ModelOutput'],
    ['client/grpc/types.ts', 'ModelEnsembleStep', 'ModelEnsembling.Step'],
    ['generator/pbtxt/types.ts', 'ModelConfig', 'ModelConfig'],
    ['generator/pbtxt/types.ts', 'ModelTensor', 'ModelInput'],
    ['generator/pbtxt/types.ts', 'ModelTensor', 'ModelOutput'],
  ])('%s %s declares only fields of %s, with their types', (file, name, message) => {
    expect(disagreements(declared(file, name), protoType(message), name)).toEqual([]);
  });

  it('a declared field the .proto lacks is caught (the check can fail)', () => {
    const file = project.createSourceFile(
      join(ROOT, 'test/unit/__probe.ts'),
      'export interface Probe { name: number; max_batch_size: number; no_such_field: string; input: string }',
      { overwrite: true },
    );
    expect(
      disagreements(file.getInterfaceOrThrow('Probe').getType(), protoType('ModelConfig'), 'Probe'),
    ).toEqual([
      'Probe.name: string, declared number',
      'Probe.no_such_field: ModelConfig has no such field',
      'Probe.input: repeated, declared string',
    ]);
  });
});
