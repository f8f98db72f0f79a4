/**
 * Tensor encoding of the gRPC client: BYTES, numeric types and data type names
 * (client/grpc/tensors).
 */
import { describe, expect, it } from 'vitest';
import {
  decodeBytesTensor,
  decodeNumericTensor,
  encodeBytesTensor,
  encodeNumericTensor,
  protocolDataType,
} from '../../client/grpc/tensors.js';

describe('BYTES tensor encoding (4-byte little-endian length, then the bytes)', () => {
  it('lays out each element as length + UTF-8 bytes, no terminator', () => {
    const raw = encodeBytesTensor(['hi', 'é']);
    expect([...raw]).toEqual([2, 0, 0, 0, 0x68, 0x69, 2, 0, 0, 0, 0xc3, 0xa9]);
  });

  it('round-trips empty strings, binary data and multi-byte text', () => {
    const elements = ['', 'Hello, world!', '日本語 🚀', '\u0000nul'];
    expect(decodeBytesTensor(encodeBytesTensor(elements)).map((b) => b.toString('utf8'))).toEqual(elements);
    const binary = new Uint8Array([0, 255, 1, 254]);
    expect([...decodeBytesTensor(encodeBytesTensor([binary]))[0]!]).toEqual([0, 255, 1, 254]);
  });

  it('decodes an empty tensor to no elements', () => {
    expect(decodeBytesTensor(Buffer.alloc(0))).toEqual([]);
  });

  it('rejects a length that runs past the end, naming the element', () => {
    const raw = Buffer.from([5, 0, 0, 0, 0x61, 0x62]);
    expect(() => decodeBytesTensor(raw)).toThrow(/element 0 claims 5 bytes but only 2 remain/);
  });

  it('rejects trailing bytes too short for a length', () => {
    const raw = Buffer.concat([encodeBytesTensor(['a']), Buffer.from([1, 0])]);
    expect(() => decodeBytesTensor(raw)).toThrow(/2 trailing byte\(s\)/);
  });
});

describe('numeric tensor encoding (little-endian, row-major)', () => {
  it('packs INT32 as 4 little-endian bytes per element', () => {
    expect([...encodeNumericTensor('INT32', [1, -1])]).toEqual([1, 0, 0, 0, 255, 255, 255, 255]);
  });

  it('round-trips every fixed-size type it supports', () => {
    const cases = [
      ['BOOL', [1, 0, 1]],
      ['UINT8', [0, 255]],
      ['INT8', [-128, 127]],
      ['UINT16', [65535]],
      ['INT16', [-32768]],
      ['UINT32', [4294967295]],
      ['INT32', [50256, -7]],
      ['INT64', [2 ** 40, -3]],
      ['UINT64', [2 ** 50]],
      ['FP32', [0.5, -2.25]],
      ['FP64', [Math.PI]],
    ] as const;
    for (const [type, values] of cases) {
      expect(decodeNumericTensor(type, encodeNumericTensor(type, values))).toEqual(values);
    }
  });

  it('refuses 64-bit values a JavaScript number cannot hold exactly', () => {
    const raw = encodeNumericTensor('UINT64', [2n ** 60n]);
    expect(() => decodeNumericTensor('UINT64', raw)).toThrow(/does not fit a JavaScript number/);
  });

  it('refuses data whose size is not a whole number of elements', () => {
    expect(() => decodeNumericTensor('INT32', Buffer.alloc(6))).toThrow(/6 bytes is not a multiple of 4/);
  });
});

describe('data type names', () => {
  it('maps config names to protocol names (TYPE_STRING is BYTES on the wire)', () => {
    expect(protocolDataType('TYPE_STRING')).toBe('BYTES');
    expect(protocolDataType('TYPE_INT32')).toBe('INT32');
    expect(protocolDataType('FP16')).toBe('FP16');
    expect(() => protocolDataType('TYPE_COMPLEX')).toThrow(/unknown tensor data type 'TYPE_COMPLEX'/);
  });
});
