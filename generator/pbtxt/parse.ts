/**
 * Reader for protobuf text format (`config.pbtxt`), driven by the ModelConfig description in
 * `descriptor.ts`. It accepts what protobuf's own TextFormat parser accepts for these messages
 * (both `{}` and `<>`, optional `:` before messages, `[a, b]` lists, repeated fields written
 * several times, `#` comments, adjacent string concatenation, C escapes) and, like Triton,
 * rejects unknown fields. Errors carry 0-based line/column.
 */
import type { Diagnostic } from '../model/diagnostics.js';
import {
  ENUMS,
  mapEntryDescriptor,
  messageDescriptor,
  type FieldDescriptor,
  type MessageDescriptor,
  type ScalarType,
} from './descriptor.js';
import type { ModelConfig, PbMessage, PbValue } from './types.js';

interface Token {
  /** `placeholder`: an unfilled `${name}` of a template (fill_template.py's syntax). */
  kind: 'ident' | 'number' | 'string' | 'punct' | 'eof' | 'placeholder';
  text: string;
  /** Decoded value of a string token. */
  value?: string;
  offset: number;
  line: number;
  column: number;
}

export class PbtxtSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    readonly length = 1,
  ) {
    super(message);
  }
}

class Lexer {
  private pos = 0;
  private line = 0;
  private col = 0;
  private peeked: Token | undefined;

  constructor(private readonly text: string) {}

  peek(): Token {
    this.peeked ??= this.scan();
    return this.peeked;
  }

  next(): Token {
    const t = this.peek();
    this.peeked = undefined;
    return t;
  }

  private advance(n: number): void {
    for (let i = 0; i < n; i++) {
      if (this.text.charCodeAt(this.pos) === 10) {
        this.line++;
        this.col = 0;
      } else this.col++;
      this.pos++;
    }
  }

  private scan(): Token {
    const t = this.text;
    for (;;) {
      const c = t[this.pos];
      if (c === undefined) break;
      if (c === '#') {
        while (this.pos < t.length && t[this.pos] !== '\n') this.advance(1);
      } else if (/\s/.test(c)) this.advance(1);
      else break;
    }
    const start = { offset: this.pos, line: this.line, column: this.col };
    const c = t[this.pos];
    if (c === undefined) return { kind: 'eof', text: '', ...start };
    if ('{}<>[]:,;'.includes(c)) {
      this.advance(1);
      return { kind: 'punct', text: c, ...start };
    }
    if (c === '"' || c === "'") return this.scanString(c, start);
    const placeholder = /^\$\{[^}\s]*\}/.exec(t.slice(this.pos, this.pos + 256));
    if (placeholder) {
      this.advance(placeholder[0].length);
      return { kind: 'placeholder', text: placeholder[0], ...start };
    }
    const word =
      /^-?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fF]?|[A-Za-z_][A-Za-z0-9_]*)/.exec(
        t.slice(this.pos, this.pos + 256),
      );
    if (!word || word[0] === '-') {
      throw new PbtxtSyntaxError(`unexpected character ${JSON.stringify(c)}`, start.line, start.column);
    }
    this.advance(word[0].length);
    const isNumber = /^-?[0-9.]/.test(word[0]);
    if (!isNumber && word[0].startsWith('-')) {
      // "-inf" / "-nan": a signed identifier is only valid as a float literal.
      return { kind: 'number', text: word[0], ...start };
    }
    return { kind: isNumber ? 'number' : 'ident', text: word[0], ...start };
  }

  private scanString(quote: string, start: { offset: number; line: number; column: number }): Token {
    const t = this.text;
    const bytes: number[] = [];
    const encoder = new TextEncoder();
    this.advance(1);
    for (;;) {
      const c = t[this.pos];
      if (c === undefined || c === '\n') {
        throw new PbtxtSyntaxError(
          'string is not closed before the end of the line',
          start.line,
          start.column,
        );
      }
      if (c === quote) {
        this.advance(1);
        break;
      }
      if (c === '\\') {
        const n = t[this.pos + 1];
        const simple: Record<string, number> = {
          n: 10,
          r: 13,
          t: 9,
          '\\': 92,
          "'": 39,
          '"': 34,
          a: 7,
          b: 8,
          f: 12,
          v: 11,
          '?': 63,
        };
        if (n !== undefined && simple[n] !== undefined) {
          bytes.push(simple[n]);
          this.advance(2);
        } else if (n !== undefined && /[0-7]/.test(n)) {
          const oct = /^[0-7]{1,3}/.exec(t.slice(this.pos + 1))![0];
          bytes.push(parseInt(oct, 8) & 0xff);
          this.advance(1 + oct.length);
        } else if (n === 'x' || n === 'X') {
          const hex = /^[0-9a-fA-F]{1,2}/.exec(t.slice(this.pos + 2));
          if (!hex) throw new PbtxtSyntaxError('\\x needs hex digits', this.line, this.col);
          bytes.push(parseInt(hex[0], 16));
          this.advance(2 + hex[0].length);
        } else if (n === 'u' || n === 'U') {
          const len = n === 'u' ? 4 : 8;
          const hex = t.slice(this.pos + 2, this.pos + 2 + len);
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) {
            throw new PbtxtSyntaxError(`\\${n} needs ${len} hex digits`, this.line, this.col);
          }
          bytes.push(...encoder.encode(String.fromCodePoint(parseInt(hex, 16))));
          this.advance(2 + len);
        } else {
          throw new PbtxtSyntaxError(`unknown escape \\${n ?? ''}`, this.line, this.col);
        }
      } else {
        const cp = t.codePointAt(this.pos)!;
        const ch = String.fromCodePoint(cp);
        bytes.push(...encoder.encode(ch));
        this.advance(ch.length);
      }
    }
    const value = new TextDecoder('utf-8', { fatal: false }).decode(new Uint8Array(bytes));
    return { kind: 'string', text: t.slice(start.offset, this.pos), value, ...start };
  }
}

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

class Parser {
  /** Unfilled placeholders met where a value belongs: reported together, each in its place. */
  readonly placeholders: Token[] = [];

  constructor(private readonly lex: Lexer) {}

  fail(t: Token, message: string): never {
    throw new PbtxtSyntaxError(message, t.line, t.column, Math.max(t.text.length, 1));
  }

  expect(text: string): Token {
    const t = this.lex.next();
    if (t.kind !== 'punct' || t.text !== text) this.fail(t, `expected "${text}" but found ${describe(t)}`);
    return t;
  }

  acceptPunct(text: string): boolean {
    const t = this.lex.peek();
    if (t.kind === 'punct' && t.text === text) {
      this.lex.next();
      return true;
    }
    return false;
  }

  /** Fields until `end` ('' = end of input). */
  parseMessage(desc: MessageDescriptor, end: string): PbMessage {
    const msg: PbMessage = {};
    const seen = new Map<string, Token>();
    const oneofs = new Map<string, string>();
    for (;;) {
      const t = this.lex.peek();
      if (end === '' ? t.kind === 'eof' : t.kind === 'punct' && t.text === end) {
        this.lex.next();
        return msg;
      }
      if (t.kind === 'eof') this.fail(t, `expected "${end}" before the end of the file`);
      if (t.kind !== 'ident') this.fail(t, `expected a field name but found ${describe(t)}`);
      this.lex.next();
      const field = desc.byName.get(t.text);
      if (!field) {
        const hint = suggest(t.text, [...desc.byName.keys()]);
        this.fail(
          t,
          `${desc.name} has no field "${t.text}"${hint ? ` (did you mean "${hint}"?)` : ''}; Triton rejects unknown fields`,
        );
      }
      const isList = field.repeated || field.map;
      if (!isList && seen.has(field.name)) this.fail(t, `field "${field.name}" is set more than once`);
      if (field.oneof) {
        const other = oneofs.get(field.oneof);
        if (other && other !== field.name) {
          this.fail(t, `"${field.name}" and "${other}" are alternatives (oneof ${field.oneof}); keep one`);
        }
        oneofs.set(field.oneof, field.name);
      }
      seen.set(field.name, t);
      this.parseFieldValue(msg, field, t);
      if (!this.acceptPunct(',')) this.acceptPunct(';');
    }
  }

  private parseFieldValue(msg: PbMessage, field: FieldDescriptor, nameTok: Token): void {
    const isMessage = 'message' in field.type || field.map !== undefined;
    const hasColon = this.acceptPunct(':');
    if (!isMessage && !hasColon) this.fail(this.lex.peek(), `expected ":" after "${field.name}"`);
    const t = this.lex.peek();
    const values: PbValue[] = [];
    if (t.kind === 'punct' && t.text === '[') {
      if (!field.repeated && !field.map)
        this.fail(t, `"${field.name}" is not repeated; a [list] is not allowed`);
      this.lex.next();
      if (!this.acceptPunct(']')) {
        for (;;) {
          values.push(this.parseSingle(field));
          if (this.acceptPunct(']')) break;
          this.expect(',');
        }
      }
    } else values.push(this.parseSingle(field));

    if (field.map) {
      const map = (msg[field.name] ??= {}) as Record<string, PbValue>;
      for (const entry of values as PbMessage[]) {
        const key = entry.key;
        if (key === undefined) this.fail(nameTok, `a "${field.name}" entry needs a key`);
        map[String(key)] = entry.value ?? defaultValue(field);
      }
    } else if (field.repeated) {
      ((msg[field.name] ??= []) as PbValue[]).push(...values);
    } else msg[field.name] = values[0];
  }

  private parseSingle(field: FieldDescriptor): PbValue {
    if (field.map) {
      const open = this.lex.next();
      if (open.kind !== 'punct' || (open.text !== '{' && open.text !== '<')) {
        this.fail(open, `expected "{" to start a "${field.name}" entry but found ${describe(open)}`);
      }
      return this.parseMessage(mapEntryDescriptor(field), open.text === '{' ? '}' : '>');
    }
    if ('message' in field.type) {
      const open = this.lex.next();
      if (open.kind !== 'punct' || (open.text !== '{' && open.text !== '<')) {
        this.fail(open, `expected "{" to start "${field.name}" but found ${describe(open)}`);
      }
      return this.parseMessage(messageDescriptor(field.type.message), open.text === '{' ? '}' : '>');
    }
    const t = this.lex.peek();
    if (t.kind === 'placeholder') {
      this.placeholders.push(this.lex.next());
      return defaultValue(field);
    }
    if ('enum' in field.type) return this.parseEnum(field.type.enum, field.name);
    return this.parseScalar(field.type.scalar, field.name);
  }

  private parseEnum(enumName: string, fieldName: string): string {
    const t = this.lex.next();
    const values = ENUMS[enumName]!;
    if (t.kind === 'ident') {
      if (values.includes(t.text)) return t.text;
      const hint = suggest(t.text, values);
      this.fail(
        t,
        `${JSON.stringify(t.text)} is not a ${enumName} value${hint ? ` (did you mean ${hint}?)` : ''}`,
      );
    }
    if (t.kind === 'number' && /^\d+$/.test(t.text) && values[Number(t.text)] !== undefined) {
      return values[Number(t.text)]!;
    }
    this.fail(t, `"${fieldName}" needs a ${enumName} value such as ${values[1] ?? values[0]}`);
  }

  parseScalar(type: ScalarType, fieldName: string): PbValue {
    const t = this.lex.next();
    switch (type) {
      case 'string': {
        if (t.kind !== 'string')
          this.fail(t, `"${fieldName}" needs a quoted string but found ${describe(t)}`);
        let value = t.value!;
        while (this.lex.peek().kind === 'string') value += this.lex.next().value!;
        return value;
      }
      case 'bool': {
        if (['true', 'True', 't', '1'].includes(t.text) && t.kind !== 'string') return true;
        if (['false', 'False', 'f', '0'].includes(t.text) && t.kind !== 'string') return false;
        this.fail(t, `"${fieldName}" needs true or false but found ${describe(t)}`);
        break;
      }
      case 'float':
      case 'double': {
        if (t.kind === 'number' || t.kind === 'ident') {
          const low = t.text.toLowerCase().replace(/f$/, '');
          if (/^-?(inf|infinity)$/.test(t.text.toLowerCase()))
            return low.startsWith('-') ? -Infinity : Infinity;
          if (/^-?nan$/.test(t.text.toLowerCase())) return NaN;
          if (t.kind === 'number') {
            const v = /^-?0[xX]/.test(t.text)
              ? Number(BigInt(t.text.replace('-', ''))) * (t.text.startsWith('-') ? -1 : 1)
              : Number(low);
            if (!Number.isNaN(v)) return v;
          }
        }
        this.fail(t, `"${fieldName}" needs a number but found ${describe(t)}`);
        break;
      }
      default: {
        if (t.kind !== 'number' || !/^-?(0[xX][0-9a-fA-F]+|\d+)$/.test(t.text)) {
          this.fail(t, `"${fieldName}" needs an integer (${type}) but found ${describe(t)}`);
        }
        const neg = t.text.startsWith('-');
        const big = BigInt(neg ? t.text.slice(1) : t.text) * (neg ? -1n : 1n);
        const [lo, hi] = INT_RANGES[type]!;
        if (big < lo || big > hi) this.fail(t, `${t.text} is out of range for "${fieldName}" (${type})`);
        return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(big)
          : big;
      }
    }
    throw new Error('unreachable');
  }
}

function defaultValue(field: FieldDescriptor): PbValue {
  if ('message' in field.type) return {};
  if ('enum' in field.type) return ENUMS[field.type.enum]![0]!;
  return field.type.scalar === 'string' ? '' : field.type.scalar === 'bool' ? false : 0;
}

function describe(t: Token): string {
  if (t.kind === 'eof') return 'the end of the file';
  return JSON.stringify(t.text.length > 40 ? `${t.text.slice(0, 40)}…` : t.text);
}

/** Closest name by edit distance, for "did you mean" hints. */
function suggest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    // Close enough to be a typo or an abbreviation ("dtype" → "data_type"), not just any name.
    const limit = Math.max(3, Math.ceil(Math.max(word.length, c.length) / 2));
    if (d < limit && d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

export interface PbtxtParseResult {
  config?: ModelConfig;
  diagnostics: Diagnostic[];
}

/** Parses a message of type `messageName` (default ModelConfig) from text format. */
export function parsePbtxt(
  text: string,
  file = 'config.pbtxt',
  messageName = 'ModelConfig',
): PbtxtParseResult {
  const parser = new Parser(new Lexer(text));
  const at = (line: number, column: number, length: number) => ({
    start: { line, column },
    end: { line, column: column + length },
  });
  try {
    const config = parser.parseMessage(messageDescriptor(messageName), '') as ModelConfig;
    if (parser.placeholders.length === 0) return { config, diagnostics: [] };
  } catch (e) {
    if (!(e instanceof PbtxtSyntaxError)) throw e;
    return {
      diagnostics: [
        ...parser.placeholders.map((t) => placeholderDiagnostic(file, t, at)),
        {
          file,
          range: at(e.line, e.column, e.length),
          severity: 'error',
          code: 'TS-E070',
          message: `${e.message}.`,
        },
      ],
    };
  }
  return { diagnostics: parser.placeholders.map((t) => placeholderDiagnostic(file, t, at)) };
}

function placeholderDiagnostic(
  file: string,
  t: Token,
  at: (line: number, column: number, length: number) => Diagnostic['range'],
): Diagnostic {
  const name = t.text.slice(2, -1);
  return {
    file,
    range: at(t.line, t.column, t.text.length),
    severity: 'error',
    code: 'TS-E072',
    message:
      `${t.text} is an unfilled template placeholder: Triton cannot read it. Fill it as fill_template.py ` +
      `does (triton-studio import --set ${name || 'NAME'}=VALUE), or write the value in place.`,
  };
}
