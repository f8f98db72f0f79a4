/**
 * A GGUF file's metadata (the key/value section before the tensors; GGUF v2/v3, little-endian),
 * read without its weights: what the tokenizer import needs. Format: "GGUF", version u32, tensor
 * count u64, key/value count u64, then per pair a string key, a u32 value type and the value
 * (ggml's gguf.h lists the types).
 */
import { closeSync, openSync, readSync } from 'node:fs';

export type GgufValue = number | bigint | boolean | string | GgufValue[];

export class GgufError extends Error {}

const enum T {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
}

/** Reads the file in chunks as the parser asks for bytes: the weights are never read. */
class Reader {
  private buf = Buffer.alloc(0);
  private start = 0; // file offset of buf[0]
  private pos = 0; // file offset of the next byte
  constructor(
    private readonly fd: number,
    private readonly file: string,
  ) {}

  private need(n: number): number {
    const at = this.pos - this.start;
    if (at + n <= this.buf.length) return at;
    const size = Math.max(n, 1 << 22);
    const chunk = Buffer.alloc(size);
    const got = readSync(this.fd, chunk, 0, size, this.pos);
    if (got < n) throw new GgufError(`${this.file}: the GGUF metadata ends early (truncated file?)`);
    this.buf = chunk.subarray(0, got);
    this.start = this.pos;
    return 0;
  }
  u32(): number {
    const at = this.need(4);
    this.pos += 4;
    return this.buf.readUInt32LE(at);
  }
  u64(): bigint {
    const at = this.need(8);
    this.pos += 8;
    return this.buf.readBigUInt64LE(at);
  }
  count(what: string): number {
    const n = this.u64();
    if (n > BigInt(Number.MAX_SAFE_INTEGER) || n > 1n << 32n) {
      throw new GgufError(`${this.file}: ${what} of ${n} is not plausible (not a GGUF file?)`);
    }
    return Number(n);
  }
  string(): string {
    const n = this.count('a string length');
    const at = this.need(n);
    this.pos += n;
    return this.buf.toString('utf8', at, at + n);
  }
  value(type: number): GgufValue {
    const scalar = (size: number, read: (at: number) => number | bigint | boolean): GgufValue => {
      const at = this.need(size);
      this.pos += size;
      return read(at);
    };
    switch (type) {
      case T.U8:
        return scalar(1, (a) => this.buf.readUInt8(a));
      case T.I8:
        return scalar(1, (a) => this.buf.readInt8(a));
      case T.U16:
        return scalar(2, (a) => this.buf.readUInt16LE(a));
      case T.I16:
        return scalar(2, (a) => this.buf.readInt16LE(a));
      case T.U32:
        return scalar(4, (a) => this.buf.readUInt32LE(a));
      case T.I32:
        return scalar(4, (a) => this.buf.readInt32LE(a));
      case T.F32:
        return scalar(4, (a) => this.buf.readFloatLE(a));
      case T.BOOL:
        return scalar(1, (a) => this.buf.readUInt8(a) !== 0);
      case T.STRING:
        return this.string();
      case T.U64:
        return scalar(8, (a) => this.buf.readBigUInt64LE(a));
      case T.I64:
        return scalar(8, (a) => this.buf.readBigInt64LE(a));
      case T.F64:
        return scalar(8, (a) => this.buf.readDoubleLE(a));
      case T.ARRAY: {
        const itemType = this.u32();
        const n = this.count('an array length');
        const out: GgufValue[] = new Array(n);
        for (let i = 0; i < n; i++) out[i] = this.value(itemType);
        return out;
      }
      default:
        throw new GgufError(`${this.file}: unknown GGUF value type ${type}`);
    }
  }
}

/** Every metadata key of a GGUF file with its value. Throws GgufError for a file that is not GGUF v2/v3. */
export function readGgufMetadata(file: string): Map<string, GgufValue> {
  const fd = openSync(file, 'r');
  try {
    const r = new Reader(fd, file);
    const magic = r.u32();
    if (magic !== 0x46554747)
      throw new GgufError(`${file} is not a GGUF file (it does not start with "GGUF")`);
    const version = r.u32();
    if (version !== 2 && version !== 3) {
      throw new GgufError(`${file}: GGUF version ${version} is not supported (2 and 3 are)`);
    }
    r.count('a tensor count');
    const pairs = r.count('a metadata count');
    const out = new Map<string, GgufValue>();
    for (let i = 0; i < pairs; i++) {
      const key = r.string();
      out.set(key, r.value(r.u32()));
    }
    return out;
  } finally {
    closeSync(fd);
  }
}
