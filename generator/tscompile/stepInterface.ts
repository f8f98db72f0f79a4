/**
 * What a compiled module means to the step that names it: for a hooks module, the hooks it
 * exports (checked against `model/hooks.ts`) and the optional STRING inputs its `HookInputs`
 * declares; for a custom step, its input and output tensors (from the fields of `Row` and `Out`)
 * and the config parameters it reads. The validator makes these the step's ports; the C++
 * printers read and write the same tensors.
 */
import type { TritonDataType } from '../model/dataTypes.js';
import {
  CUSTOM_STEP_EXPORT,
  HOOK_EXPORTS,
  HOOK_INPUTS_INTERFACE,
  hookSignature,
  STREAM_STATE_INTERFACE,
  type HookDescriptor,
  type HookName,
} from '../model/hooks.js';
import type { NativeStepKind } from '../model/portRoles.js';
import type { CompiledModule, FunctionInfo } from './compile.js';
import { TYPED_ARRAYS, typeName, type StructField, type TsType } from './types.js';

export interface ModulePort {
  name: string;
  dataType: TritonDataType;
  /** Without the batch dimension. */
  dims: number[];
  optional?: boolean;
}

export interface HookModuleInterface {
  /** Hooks the module exports that a step of this kind calls. */
  hooks: HookName[];
  /** The HookInputs fields: optional STRING [1] inputs of a tokenize step. */
  inputs: ModulePort[];
  /** Why the module does not fit the contract (empty when it does). */
  problems: string[];
}

export interface PortPlan {
  port: ModulePort;
  /** InputTensor reader: Strings, Floats or Integers. */
  reader: 'Strings' | 'Floats' | 'Integers';
  kind: 'scalar' | 'list';
  field: StructField;
}

export interface CustomModuleInterface {
  rowType?: string;
  outType?: string;
  paramType?: string;
  inputs: PortPlan[];
  outputs: PortPlan[];
  /** Model-config parameters `execute` reads (all required). */
  parameters: StructField[];
  problems: string[];
}

const TYPED_DTYPE: Record<keyof typeof TYPED_ARRAYS, TritonDataType> = {
  Float32Array: 'FP32',
  Float64Array: 'FP64',
  Int8Array: 'INT8',
  Uint8Array: 'UINT8',
  Int16Array: 'INT16',
  Uint16Array: 'UINT16',
  Int32Array: 'INT32',
  Uint32Array: 'UINT32',
};
const NUMBER_DTYPES: readonly TritonDataType[] = [
  'FP32',
  'FP64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
];

/** The hooks of `module` that a `kind` step calls, and its hook inputs (tokenize only). */
export function hookInterface(module: CompiledModule, kind: NativeStepKind): HookModuleInterface {
  const problems: string[] = [];
  const hooks: HookName[] = [];
  const exported = [...module.functions.values()].filter((f) => f.exported);
  const known = new Set<string>(HOOK_EXPORTS.map((h) => h.name));
  for (const f of exported) {
    if (!known.has(f.name)) {
      problems.push(
        `exports ${f.name}, which is no hook: the hooks are ${HOOK_EXPORTS.map((h) => h.name).join(', ')} (export only those; keep helpers unexported)`,
      );
    }
  }
  for (const h of HOOK_EXPORTS as readonly HookDescriptor[]) {
    const f = module.functions.get(h.name);
    if (!f?.exported) continue;
    const why = signatureProblem(f, h, module);
    if (why) problems.push(`${h.name} must be ${hookSignature(h)}: ${why}`);
    else if (h.stepKind === kind) hooks.push(h.name as HookName);
  }
  const stream = HOOK_EXPORTS.filter((h) => 'group' in h && h.group === 'stream').map((h) => h.name);
  const present = stream.filter((n) => module.functions.get(n)?.exported);
  if (present.length > 0 && present.length < stream.length) {
    problems.push(
      `the streaming hooks go together: export ${stream.filter((n) => !present.includes(n)).join(' and ')} too (or none of ${stream.join(', ')})`,
    );
  }
  const inputs: ModulePort[] = [];
  const fields = module.structs.get(HOOK_INPUTS_INTERFACE);
  if (fields && kind === 'tokenize' && hooks.includes('beforeEncode')) {
    for (const f of fields) {
      if (f.type.kind !== 'string') {
        problems.push(
          `${HOOK_INPUTS_INTERFACE}.${f.name} must be a string (each field is an optional STRING input)`,
        );
        continue;
      }
      inputs.push({ name: f.name, dataType: 'STRING', dims: [1], optional: true });
    }
  }
  return { hooks, inputs, problems };
}

function signatureProblem(f: FunctionInfo, h: HookDescriptor, module: CompiledModule): string | undefined {
  const want = (v: string): string => v;
  const matches = (t: TsType, v: string): boolean =>
    v === 'string' ? t.kind === 'string' : t.kind === 'struct' && t.name === v;
  const required = h.params.filter((p) => !('optional' in p)).length;
  if (f.params.length < required || f.params.length > h.params.length)
    return `it takes ${f.params.length} parameter(s)`;
  for (let i = 0; i < f.params.length; i++) {
    const p = f.params[i]!;
    const w = h.params[i]!;
    if (!matches(p.type, w.type))
      return `parameter ${p.name} is ${typeName(p.type)}, not ${want(w.type)}${w.type !== 'string' && !module.structs.has(w.type) ? ` (declare interface ${w.type})` : ''}`;
  }
  if (!matches(f.returns, h.returns)) return `it returns ${typeName(f.returns)}`;
  if (h.returns === STREAM_STATE_INTERFACE || h.params.some((p) => p.type === STREAM_STATE_INTERFACE)) {
    if (!module.structs.has(STREAM_STATE_INTERFACE)) return `declare interface ${STREAM_STATE_INTERFACE}`;
  }
  return undefined;
}

/** A custom step's tensors and parameters, from `execute(rows: Row[], params?: Parameters): Out[]`. */
export function customStepInterface(module: CompiledModule): CustomModuleInterface {
  const empty: CustomModuleInterface = { inputs: [], outputs: [], parameters: [], problems: [] };
  const execute = module.functions.get(CUSTOM_STEP_EXPORT.name);
  if (!execute || !execute.exported)
    return { ...empty, problems: [`it must export function ${CUSTOM_STEP_EXPORT.signature}`] };
  const [rowsParam, paramsParam, extra] = execute.params;
  const structOfArray = (t: TsType | undefined): string | undefined =>
    t?.kind === 'array' && t.element.kind === 'struct' ? t.element.name : undefined;
  const rowType = structOfArray(rowsParam?.type);
  const outType = structOfArray(execute.returns);
  if (!rowType || !outType || extra || (paramsParam && paramsParam.type.kind !== 'struct')) {
    return {
      ...empty,
      problems: [
        `execute must be (rows: Row[], params?: Parameters) => Out[], with Row, Out and Parameters interfaces`,
      ],
    };
  }
  const problems: string[] = [];
  const planAll = (type: string): PortPlan[] =>
    module.structs.get(type)!.flatMap((f) => {
      const p = plan(f, type);
      if (typeof p === 'string') {
        problems.push(p);
        return [];
      }
      return [p];
    });
  const inputs = planAll(rowType);
  const outputs = planAll(outType);
  const paramType = paramsParam?.type.kind === 'struct' ? paramsParam.type.name : undefined;
  const parameters = paramType ? module.structs.get(paramType)! : [];
  for (const f of parameters) {
    if (f.type.kind !== 'string' && f.type.kind !== 'number' && f.type.kind !== 'boolean')
      problems.push(`${paramType}.${f.name}: parameters are strings, numbers or booleans`);
  }
  return { rowType, outType, paramType, inputs, outputs, parameters, problems };
}

/** How one field becomes a tensor; a string says why it cannot. */
function plan(field: StructField, where: string): PortPlan | string {
  const t = field.type;
  const dimsTag = field.tags['dims'];
  const listDims = dimsTag
    ? dimsTag
        .split(/[\s,[\]]+/)
        .filter(Boolean)
        .map(Number)
    : [-1];
  if (listDims.some((d) => !Number.isInteger(d) || (d < 1 && d !== -1)))
    return `${where}.${field.name}: @dims must be positive integers or -1, got "${dimsTag}"`;
  const numberDtype = (): TritonDataType | string => {
    const d = (field.tags['dtype'] ?? 'FP32').replace(/^TYPE_/, '');
    return NUMBER_DTYPES.includes(d as TritonDataType)
      ? (d as TritonDataType)
      : `${where}.${field.name}: @dtype must be one of ${NUMBER_DTYPES.join(', ')}`;
  };
  const readerOf = (d: string): 'Floats' | 'Integers' => (d.startsWith('FP') ? 'Floats' : 'Integers');
  const numeric = (kind: 'scalar' | 'list', dims: number[]): PortPlan | string => {
    const d = numberDtype();
    if (!NUMBER_DTYPES.includes(d as TritonDataType)) return d;
    return {
      port: { name: field.name, dataType: d as TritonDataType, dims },
      reader: readerOf(d),
      kind,
      field,
    };
  };
  switch (t.kind) {
    case 'string':
      return {
        port: { name: field.name, dataType: 'STRING', dims: [1] },
        reader: 'Strings',
        kind: 'scalar',
        field,
      };
    case 'number':
      return numeric('scalar', [1]);
    case 'typed': {
      const d = TYPED_DTYPE[t.name];
      return {
        port: { name: field.name, dataType: d, dims: listDims },
        reader: readerOf(d),
        kind: 'list',
        field,
      };
    }
    case 'array':
      if (t.element.kind === 'string')
        return {
          port: { name: field.name, dataType: 'STRING', dims: listDims },
          reader: 'Strings',
          kind: 'list',
          field,
        };
      if (t.element.kind === 'number') return numeric('list', listDims);
      break;
    default:
      break;
  }
  return `${where}.${field.name}: a ${typeName(t)} field cannot be a tensor (use string, number, a typed array, string[] or number[])`;
}
