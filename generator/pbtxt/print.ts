/**
 * Writer for protobuf text format, driven by the ModelConfig description: fields in declaration
 * order, repeated messages as `[ {…}, {…} ]` lists and repeated scalars as `[a, b]` (the layout
 * Triton's own examples use), maps as `key`/`value` entries. Strings are escaped so any value —
 * quotes, newlines, backslashes, non-ASCII — reads back exactly.
 */
import {
  ENUMS,
  mapEntryDescriptor,
  messageDescriptor,
  type FieldDescriptor,
  type MessageDescriptor,
  type ScalarType,
} from './descriptor.js';
import type { PbMessage, PbValue } from './types.js';

export interface PrintOptions {
  /** Comment lines written first, each prefixed with `# `. */
  header?: string[];
  indent?: string;
}

export class PbtxtWriteError extends Error {}

export function printPbtxt(
  message: PbMessage,
  options: PrintOptions = {},
  messageName = 'ModelConfig',
): string {
  const indent = options.indent ?? '  ';
  const lines: string[] = [];
  for (const h of options.header ?? []) {
    // A newline inside a header line would end the comment and start pbtxt text.
    lines.push(`# ${h.replace(/[\r\n]+/g, ' ')}`.trimEnd());
  }
  if (lines.length > 0) lines.push('');
  printFields(message, messageDescriptor(messageName), 0, indent, lines, messageName);
  return `${lines.join('\n')}\n`;
}

function printFields(
  msg: PbMessage,
  desc: MessageDescriptor,
  depth: number,
  indent: string,
  out: string[],
  path: string,
): void {
  for (const key of Object.keys(msg)) {
    if (msg[key] !== undefined && !desc.byName.has(key)) {
      throw new PbtxtWriteError(`${path}: ${desc.name} has no field "${key}"`);
    }
  }
  const pad = indent.repeat(depth);
  for (const field of desc.fields) {
    const value = msg[field.name];
    if (value === undefined) continue;
    const where = `${path}.${field.name}`;
    if (field.map) {
      const entryDesc = mapEntryDescriptor(field);
      for (const [k, v] of Object.entries(value as Record<string, PbValue>)) {
        out.push(`${pad}${field.name} {`);
        const keyValue = field.map.key === 'string' ? k : parseMapKey(k, where);
        printFields({ key: keyValue, value: v }, entryDesc, depth + 1, indent, out, `${where}[${k}]`);
        out.push(`${pad}}`);
      }
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new PbtxtWriteError(`${where} must be a list`);
      if (value.length === 0) {
        // Kept when present: `reshape { shape: [ ] }` (a scalar) reads differently from no reshape.
        out.push(`${pad}${field.name}${'message' in field.type ? '' : ':'} [ ]`);
        continue;
      }
      if ('message' in field.type) {
        const sub = messageDescriptor(field.type.message);
        out.push(`${pad}${field.name} [`);
        value.forEach((item, i) => {
          out.push(`${pad}${indent}{`);
          printFields(asMessage(item, `${where}[${i}]`), sub, depth + 2, indent, out, `${where}[${i}]`);
          out.push(`${pad}${indent}}${i < value.length - 1 ? ',' : ''}`);
        });
        out.push(`${pad}]`);
      } else {
        const items = value.map((v, i) => scalarText(field, v, `${where}[${i}]`));
        out.push(`${pad}${field.name}: [ ${items.join(', ')} ]`);
      }
    } else if ('message' in field.type) {
      const sub = asMessage(value, where);
      if (Object.values(sub).every((v) => v === undefined)) {
        out.push(`${pad}${field.name} { }`); // present but empty, e.g. dynamic_batching with defaults
        continue;
      }
      out.push(`${pad}${field.name} {`);
      printFields(sub, messageDescriptor(field.type.message), depth + 1, indent, out, where);
      out.push(`${pad}}`);
    } else {
      out.push(`${pad}${field.name}: ${scalarText(field, value, where)}`);
    }
  }
}

function parseMapKey(k: string, where: string): bigint | number {
  if (!/^-?\d+$/.test(k))
    throw new PbtxtWriteError(`${where}: map key ${JSON.stringify(k)} must be an integer`);
  const b = BigInt(k);
  return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(b) : b;
}

function asMessage(v: PbValue, where: string): PbMessage {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || typeof v === 'bigint') {
    throw new PbtxtWriteError(`${where} must be a message (object)`);
  }
  return v as PbMessage;
}

function scalarText(field: FieldDescriptor, v: PbValue, where: string): string {
  if ('enum' in field.type) {
    if (typeof v !== 'string' || !ENUMS[field.type.enum]!.includes(v)) {
      throw new PbtxtWriteError(`${where}: ${JSON.stringify(v)} is not a ${field.type.enum} value`);
    }
    return v;
  }
  if ('message' in field.type) throw new PbtxtWriteError(`${where} must be a message`);
  return scalarLiteral(field.type.scalar, v, where);
}

function scalarLiteral(type: ScalarType, v: PbValue, where: string): string {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') throw new PbtxtWriteError(`${where} must be a string`);
      return quote(v);
    case 'bool':
      if (typeof v !== 'boolean') throw new PbtxtWriteError(`${where} must be true or false`);
      return String(v);
    case 'float':
    case 'double':
      if (typeof v !== 'number') throw new PbtxtWriteError(`${where} must be a number`);
      return Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v);
    default:
      if (!(typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)))) {
        throw new PbtxtWriteError(`${where} must be an integer (${type})`);
      }
      if ((type === 'uint32' || type === 'uint64') && v < 0)
        throw new PbtxtWriteError(`${where} must not be negative`);
      return String(v);
  }
}

/** A double-quoted text-format string: C escapes for quotes, backslash and control characters. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\${c.toString(8).padStart(3, '0')}`;
    else out += ch; // non-ASCII stays as UTF-8: the parser reads raw bytes
  }
  return `${out}"`;
}
