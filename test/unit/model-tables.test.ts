/**
 * The data-type, port-role and hook tables (generator/model/) are the one source of truth: everything
 * that restates them — the JSON Schema, the presets, the docs, the .proto, and the C++ runtime in
 * backends/triton — must agree with them. C++ is read as text, so a change on either side that
 * the other does not follow fails here instead of at model load.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listPresets } from '../../generator/index.js';
import { roleTables } from '../../generator/import/roles.js';
import { HOOK_EXPORTS, hookSignature } from '../../generator/model/hooks.js';
import { DATA_TYPES, PORT_ROLES, portRoles, type PresetFamily } from '../../generator/model/index.js';
import { ENUMS } from '../../generator/pbtxt/descriptor.js';

const root = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Every C++ source of the Triton glue, wherever a refactor puts the pieces. */
function tritonSources(): string {
  const dir = join(root, 'backends/triton/src');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(cc|h)$/.test(f));
  return files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
}

function structBody(source: string, name: string): string {
  const m = new RegExp(`struct ${name} \\{([\\s\\S]*?)\\n\\};`).exec(source);
  expect(m, `struct ${name}`).not.toBeNull();
  return m![1]!;
}

describe('data types', () => {
  it('numbers match the DataType enum of the model_config.proto description', () => {
    for (const t of DATA_TYPES) expect(ENUMS.DataType![t.protoEnum]).toBe(`TYPE_${t.name}`);
    expect(ENUMS.DataType).toHaveLength(DATA_TYPES.length + 1);
  });

  it('numbers match TRITONSERVER_DataType in the project’s Triton API declarations', () => {
    const api = read('backends/triton/include/triton_studio/tritonbackend_api.h');
    const values = Object.fromEntries(
      [...api.matchAll(/(TRITONSERVER_TYPE_\w+) = (\d+)/g)].map((m) => [m[1], Number(m[2])]),
    );
    expect(values).toEqual({
      TRITONSERVER_TYPE_INVALID: 0,
      ...Object.fromEntries(DATA_TYPES.map((t) => [t.cppEnum, t.protoEnum])),
    });
  });

  it('the C++ runtime’s name/size table lists every type with the same protocol name and size', () => {
    const rows = [...tritonSources().matchAll(/\{(TRITONSERVER_TYPE_\w+), "(\w+)", (\d+)\}/g)].map((m) => ({
      cppEnum: m[1],
      protocolName: m[2],
      byteSize: Number(m[3]),
    }));
    expect(rows).toEqual(
      DATA_TYPES.map((t) => ({ cppEnum: t.cppEnum, protocolName: t.protocolName, byteSize: t.byteSize })),
    );
  });

  it('the C++ runtime reads each integer type as the C++ type the table names, and only those', () => {
    const source = tritonSources();
    const widened = [...source.matchAll(/case (TRITONSERVER_TYPE_\w+): Widen<(\w+)>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const narrowed = [...source.matchAll(/case (TRITONSERVER_TYPE_\w+): Narrow<(\w+)>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    const integers = DATA_TYPES.filter((t) => t.class === 'integer').map((t) => [t.cppEnum, t.cppType]);
    expect(widened).toEqual(integers);
    expect(narrowed).toEqual(integers);
    const isInteger = /bool IsIntegerType\([^)]*\) \{([\s\S]*?)\n\}/.exec(source)![1]!;
    expect([...isInteger.matchAll(/case (TRITONSERVER_TYPE_\w+):/g)].map((m) => m[1])).toEqual(
      integers.map(([e]) => e),
    );
  });

  it('typed arrays have the element size the table gives', () => {
    for (const t of DATA_TYPES) {
      if (t.typedArray === undefined) expect(t.byteSize).toBe(0);
      else {
        const ctor = (globalThis as unknown as Record<string, { BYTES_PER_ELEMENT: number }>)[t.typedArray]!;
        expect(ctor.BYTES_PER_ELEMENT, t.name).toBe(t.byteSize);
      }
    }
  });

  it('the pipeline schema offers exactly these types', () => {
    const schema = JSON.parse(read('generator/schema/pipeline.schema.json'));
    expect(schema.definitions.dataType.enum).toEqual(DATA_TYPES.map((t) => t.name));
  });
});

describe('port roles', () => {
  it('the pipeline schema offers exactly the roles of the table', () => {
    const schema = JSON.parse(read('generator/schema/pipeline.schema.json'));
    const enumRoles: string[] = schema.definitions.port.properties.role.enum;
    expect(new Set(enumRoles)).toEqual(new Set(PORT_ROLES.map((r) => r.role)));
    expect(enumRoles).toHaveLength(new Set(enumRoles).size);
  });

  it.each([
    ['TokenizeSpec', 'tokenize'],
    ['DetokenizeSpec', 'detokenize'],
  ] as const)('%s in steps.h has one field per role, optional exactly where the role is', (struct, kind) => {
    const body = structBody(read('backends/triton/include/triton_studio/steps.h'), struct);
    const fields = [...body.matchAll(/^\s*(std::optional<TensorSpec>|TensorSpec) (\w+);/gm)].map((m) => ({
      field: m[2],
      optional: m[1] !== 'TensorSpec',
    }));
    const expected = portRoles(kind).map((r) => ({ field: r.cppField, optional: !r.required }));
    const byField = (a: { field?: string }, b: { field?: string }) => a.field!.localeCompare(b.field!);
    expect(fields.sort(byField)).toEqual(expected.sort(byField));
  });

  it('each preset family names its role-bearing ports as the table says', () => {
    const seen = new Set<string>();
    for (const preset of listPresets()) {
      if (preset.kind !== 'tokenize' && preset.kind !== 'detokenize') continue;
      const family = preset.id.split('/')[0] as PresetFamily;
      for (const side of ['inputs', 'outputs'] as const) {
        for (const p of preset.template[side] ?? []) {
          const row = portRoles(preset.kind, side).find((r) => r.role === p.role);
          expect(row, `${preset.id} ${p.name}`).toBeDefined();
          expect(row!.presetNames[family], `${preset.id} ${side} ${p.role}`).toBe(p.name);
          seen.add(`${preset.kind}.${side}.${p.role}.${family}`);
        }
      }
    }
    for (const r of PORT_ROLES) {
      for (const family of Object.keys(r.presetNames)) {
        expect(seen, `${family} preset binds ${r.side} ${r.role}`).toContain(
          `${r.stepKind}.${r.side}.${r.role}.${family}`,
        );
      }
    }
  });

  it('import recognises every preset name, each as one role only', () => {
    for (const kind of ['tokenize', 'detokenize'] as const) {
      const tables = roleTables(kind);
      for (const side of ['inputs', 'outputs'] as const) {
        for (const r of portRoles(kind, side)) {
          for (const name of [...Object.values(r.presetNames), ...(r.importAliases ?? [])]) {
            expect(tables[side].get(name), `${kind} ${side} ${name}`).toBe(r.role);
          }
        }
      }
    }
  });

  it('roles are unique per step kind and side, and C++ fields per step kind', () => {
    for (const kind of ['tokenize', 'detokenize'] as const) {
      const rows = portRoles(kind);
      expect(new Set(rows.map((r) => `${r.side}.${r.role}`)).size).toBe(rows.length);
      expect(new Set(rows.map((r) => r.cppField)).size).toBe(rows.length);
    }
  });

  it('docs/PIPELINE.md lists every role under its step kind', () => {
    const doc = read('docs/PIPELINE.md');
    for (const r of PORT_ROLES) {
      const line = doc.split('\n').find((l) => l.startsWith(`| ${r.stepKind} |`));
      expect(line, r.stepKind).toBeDefined();
      expect(line).toContain(`\`${r.role}\``);
    }
  });
});

describe('hooks', () => {
  it('docs/HOOKS.md lists every hook with the step kind, signature and moment of the table', () => {
    const doc = read('docs/HOOKS.md').split('\n');
    for (const h of HOOK_EXPORTS) {
      expect(doc, h.name).toContain(`| ${h.name} | ${h.stepKind} | \`${hookSignature(h)}\` | ${h.runs} |`);
    }
  });

  it('the pipeline schema offers "hooks" and "source" on steps, as the Step type does', () => {
    const schema = JSON.parse(read('generator/schema/pipeline.schema.json')) as {
      definitions: { step: { properties: Record<string, { type?: string }> } };
    };
    expect(schema.definitions.step.properties['hooks']?.type).toBe('string');
    expect(schema.definitions.step.properties['source']?.type).toBe('string');
  });
});
