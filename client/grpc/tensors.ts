/**
 * Tensor data as the KServe v2 protocol carries it in `raw_input_contents` / `raw_output_contents`:
 * flattened, row-major, little-endian; BYTES elements as a 4-byte little-endian length followed
 * by the bytes (no terminator).
 */
import {
  DATA_TYPES,
  dataType,
  dataTypeFromConfig,
  isProtocolDataType,
  type ProtocolDataType,
} from '../../generator/model/dataTypes.js';
import { TritonError } from './errors.js';

/** Protocol data type names (`BYTES` where config.pbtxt says `STRING`). */
export type TensorDataType = ProtocolDataType;

/** Bytes per element for fixed-size types; BYTES is variable. */
const ELEMENT_SIZE = Object.fromEntries(
  DATA_TYPES.filter((t) => t.byteSize > 0).map((t) => [t.protocolName, t.byteSize]),
) as Record<Exclude<TensorDataType, 'BYTES'>, number>;

export function isTensorDataType(value: string): value is TensorDataType {
  return isProtocolDataType(value);
}

/** Config-file type name (`TYPE_STRING`, `TYPE_INT32`) → protocol type name (`BYTES`, `INT32`). */
export function protocolDataType(configType: string): TensorDataType {
  const name = dataTypeFromConfig(configType);
  if (name !== undefined) return dataType(name).protocolName;
  const bare = configType.replace(/^TYPE_/, '');
  if (isProtocolDataType(bare)) return bare;
  throw new Error(`unknown tensor data type '${configType}'`);
}

/** Bytes per element, or undefined for BYTES (variable length). */
export function elementSize(datatype: TensorDataType): number | undefined {
  return datatype === 'BYTES' ? undefined : ELEMENT_SIZE[datatype];
}

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((n, d) => n * d, 1);
}

/** Serializes BYTES elements: each as a uint32 LE length, then its bytes. Strings are UTF-8. */
export function encodeBytesTensor(elements: ReadonlyArray<string | Uint8Array>): Buffer {
  const parts = elements.map((e) => (typeof e === 'string' ? Buffer.from(e, 'utf8') : Buffer.from(e)));
  const out = Buffer.alloc(parts.reduce((n, p) => n + 4 + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.writeUInt32LE(part.length, offset);
    part.copy(out, offset + 4);
    offset += 4 + part.length;
  }
  return out;
}

/** Splits a serialized BYTES tensor into its elements; throws if a length runs past the end. */
export function decodeBytesTensor(raw: Uint8Array): Buffer[] {
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const elements: Buffer[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    if (offset + 4 > buffer.length) {
      throw new Error(
        `malformed BYTES tensor: ${buffer.length - offset} trailing byte(s) where a 4-byte length was expected`,
      );
    }
    const length = buffer.readUInt32LE(offset);
    const start = offset + 4;
    if (start + length > buffer.length) {
      throw new Error(
        `malformed BYTES tensor: element ${elements.length} claims ${length} bytes but only ${buffer.length - start} remain`,
      );
    }
    elements.push(buffer.subarray(start, start + length));
    offset = start + length;
  }
  return elements;
}

/** Packs numbers (or bigints for 64-bit integers, booleans for BOOL) into raw little-endian bytes. */
export function encodeNumericTensor(
  datatype: Exclude<TensorDataType, 'BYTES' | 'FP16' | 'BF16'>,
  values: ReadonlyArray<number | bigint | boolean>,
): Buffer {
  const size = ELEMENT_SIZE[datatype];
  const out = Buffer.alloc(values.length * size);
  values.forEach((v, i) => {
    const at = i * size;
    switch (datatype) {
      case 'BOOL':
        return out.writeUInt8(v ? 1 : 0, at);
      case 'UINT8':
        return out.writeUInt8(Number(v), at);
      case 'INT8':
        return out.writeInt8(Number(v), at);
      case 'UINT16':
        return out.writeUInt16LE(Number(v), at);
      case 'INT16':
        return out.writeInt16LE(Number(v), at);
      case 'UINT32':
        return out.writeUInt32LE(Number(v), at);
      case 'INT32':
        return out.writeInt32LE(Number(v), at);
      case 'FP32':
        return out.writeFloatLE(Number(v), at);
      case 'FP64':
        return out.writeDoubleLE(Number(v), at);
      case 'UINT64':
        return out.writeBigUInt64LE(BigInt(v), at);
      case 'INT64':
        return out.writeBigInt64LE(BigInt(v), at);
    }
  });
  return out;
}

/**
 * Unpacks raw little-endian bytes into numbers. 64-bit integers become numbers when they fit
 * exactly (token ids, lengths), else the call fails rather than lose precision silently.
 */
export function decodeNumericTensor(datatype: TensorDataType, raw: Uint8Array): number[] {
  if (datatype === 'BYTES' || datatype === 'FP16' || datatype === 'BF16') {
    throw new Error(`cannot read ${datatype} data as numbers`);
  }
  const size = ELEMENT_SIZE[datatype];
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (buffer.length % size !== 0) {
    throw new Error(`malformed ${datatype} tensor: ${buffer.length} bytes is not a multiple of ${size}`);
  }
  const values: number[] = [];
  for (let at = 0; at < buffer.length; at += size) {
    switch (datatype) {
      case 'BOOL':
      case 'UINT8':
        values.push(buffer.readUInt8(at));
        break;
      case 'INT8':
        values.push(buffer.readInt8(at));
        break;
      case 'UINT16':
        values.push(buffer.readUInt16LE(at));
        break;
      case 'INT16':
        values.push(buffer.readInt16LE(at));
        break;
      case 'UINT32':
        values.push(buffer.readUInt32LE(at));
        break;
      case 'INT32':
        values.push(buffer.readInt32LE(at));
        break;
      case 'FP32':
        values.push(buffer.readFloatLE(at));
        break;
      case 'FP64':
        values.push(buffer.readDoubleLE(at));
        break;
      case 'UINT64':
      case 'INT64': {
        const big = datatype === 'UINT64' ? buffer.readBigUInt64LE(at) : buffer.readBigInt64LE(at);
        if (big > BigInt(Number.MAX_SAFE_INTEGER) || big < BigInt(Number.MIN_SAFE_INTEGER)) {
          throw new Error(`${datatype} value ${big} does not fit a JavaScript number exactly`);
        }
        values.push(Number(big));
        break;
      }
    }
  }
  return values;
}

/** One input tensor: raw protocol bytes plus what they mean. */
export interface InferInput {
  name: string;
  datatype: TensorDataType;
  shape: number[];
  raw: Buffer;
}

/** A BYTES input from strings (UTF-8) or byte arrays. */
export function bytesInput(
  name: string,
  shape: number[],
  elements: ReadonlyArray<string | Uint8Array>,
): InferInput {
  return { name, datatype: 'BYTES', shape, raw: encodeBytesTensor(elements) };
}

/** A numeric input (INT32, FP32, BOOL, …). */
export function numericInput(
  name: string,
  datatype: Exclude<TensorDataType, 'BYTES' | 'FP16' | 'BF16'>,
  shape: number[],
  values: ReadonlyArray<number | bigint | boolean>,
): InferInput {
  return { name, datatype, shape, raw: encodeNumericTensor(datatype, values) };
}

/** Catches shape/data mismatches here, where the message can name the tensor, not in the server. */
export function checkInput(model: string, input: InferInput): void {
  const expected = elementCount(input.shape);
  const size = elementSize(input.datatype);
  const actual = size === undefined ? decodeBytesTensor(input.raw).length : input.raw.length / size;
  if (actual !== expected) {
    throw new TritonError(
      `input '${input.name}' of '${model}' has shape [${input.shape.join(',')}] (${expected} element(s)) but ${actual} element(s) of data`,
      undefined,
      'ModelInfer',
    );
  }
}
