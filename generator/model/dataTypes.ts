/**
 * Triton's tensor data types, once: the pipeline file, config.pbtxt, the C++ step codegen, the
 * gRPC client's tensor packing and (by test) the C++ runtime's own table in backends/triton all
 * read their facts from here. `test/unit/model-tables.test.ts` checks the C++ side against it.
 */

/** What a port of a given type can mean to a native step (`TensorBinding` checks use it). */
export type DataTypeClass = 'bool' | 'integer' | 'float' | 'string';

export interface DataTypeDescriptor {
  /** As the pipeline file and config.pbtxt (after `TYPE_`) write it. */
  readonly name: string;
  /** As the KServe v2 protocol names it (`datatype` on the wire): STRING travels as BYTES. */
  readonly protocolName: string;
  /** model_config.proto `DataType` value of `TYPE_<name>`; TRITONSERVER_DataType uses the same numbers. */
  readonly protoEnum: number;
  /** Bytes per element; 0 for variable-length STRING/BYTES. */
  readonly byteSize: number;
  /** JavaScript view of the raw little-endian data (FP16/BF16 as their raw 16-bit words). */
  readonly typedArray?: string;
  /** C++ element type the runtime reads or writes; STRING elements are length-prefixed bytes. */
  readonly cppType: string;
  /** The `TRITONSERVER_DataType` enumerator. */
  readonly cppEnum: string;
  readonly class: DataTypeClass;
}

/** In `DataType` enum order (TYPE_INVALID = 0 left out). */
export const DATA_TYPES = [
  row('BOOL', 1, 1, 'Uint8Array', 'bool', 'bool'),
  row('UINT8', 2, 1, 'Uint8Array', 'uint8_t', 'integer'),
  row('UINT16', 3, 2, 'Uint16Array', 'uint16_t', 'integer'),
  row('UINT32', 4, 4, 'Uint32Array', 'uint32_t', 'integer'),
  row('UINT64', 5, 8, 'BigUint64Array', 'uint64_t', 'integer'),
  row('INT8', 6, 1, 'Int8Array', 'int8_t', 'integer'),
  row('INT16', 7, 2, 'Int16Array', 'int16_t', 'integer'),
  row('INT32', 8, 4, 'Int32Array', 'int32_t', 'integer'),
  row('INT64', 9, 8, 'BigInt64Array', 'int64_t', 'integer'),
  row('FP16', 10, 2, 'Uint16Array', 'uint16_t', 'float'),
  row('FP32', 11, 4, 'Float32Array', 'float', 'float'),
  row('FP64', 12, 8, 'Float64Array', 'double', 'float'),
  {
    ...row('STRING', 13, 0, undefined, 'std::string', 'string'),
    protocolName: 'BYTES',
    cppEnum: 'TRITONSERVER_TYPE_BYTES',
  },
  row('BF16', 14, 2, 'Uint16Array', 'uint16_t', 'float'),
] as const satisfies readonly DataTypeDescriptor[];

/** Triton data types as written in config.pbtxt, without the `TYPE_` prefix. */
export type TritonDataType = (typeof DATA_TYPES)[number]['name'];

/** The same types as the KServe v2 protocol names them (BYTES for STRING). */
export type ProtocolDataType = (typeof DATA_TYPES)[number]['protocolName'];

type DataTypeRow = (typeof DATA_TYPES)[number];
const BY_NAME = new Map<string, DataTypeRow>(DATA_TYPES.map((t) => [t.name, t]));
const BY_PROTOCOL_NAME = new Map<string, DataTypeRow>(DATA_TYPES.map((t) => [t.protocolName, t]));

export function isTritonDataType(name: string): name is TritonDataType {
  return BY_NAME.has(name);
}

export function isProtocolDataType(name: string): name is ProtocolDataType {
  return BY_PROTOCOL_NAME.has(name);
}

export function dataType(name: TritonDataType): DataTypeRow {
  return BY_NAME.get(name)!;
}

/** `TYPE_INT32` / `INT32` → `INT32`; undefined for a name Triton does not have. */
export function dataTypeFromConfig(configType: string): TritonDataType | undefined {
  const bare = configType.replace(/^TYPE_/, '');
  return isTritonDataType(bare) ? bare : undefined;
}

export function hasDataTypeClass(name: string, cls: DataTypeClass): boolean {
  return BY_NAME.get(name)?.class === cls;
}

function row<N extends string, P extends number>(
  name: N,
  protoEnum: P,
  byteSize: number,
  typedArray: string | undefined,
  cppType: string,
  cls: DataTypeClass,
) {
  return {
    name,
    protocolName: name,
    protoEnum,
    byteSize,
    typedArray,
    cppType,
    cppEnum: `TRITONSERVER_TYPE_${name}` as const,
    class: cls,
  };
}
