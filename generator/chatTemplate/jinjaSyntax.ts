/**
 * A Jinja chat template's first syntax error and its place, from npm `@huggingface/jinja` (the
 * parser Hugging Face's JavaScript libraries use), for the editor: it runs in-process on every
 * keystroke, where the native engine (the steps' own parser) needs a built tool and a process.
 * Its tokens carry no offsets, so the place is found here: lexer errors by lexing prefixes, parser
 * errors by parsing token prefixes, and token offsets by walking the source beside its tokens.
 */
import type * as Jinja from '@huggingface/jinja' with { 'resolution-mode': 'import' };

// The package is an ES module with a CommonJS build beside it; this project compiles to CommonJS,
// where TypeScript allows only a type import of an ES module's declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse, tokenize } = require('@huggingface/jinja') as typeof Jinja;

/** A syntax error inside the template text: UTF-16 offset and length, both within the template. */
export interface TemplateSyntaxError {
  message: string;
  offset: number;
  length: number;
}

type Token = ReturnType<typeof tokenize>[number];

/** The first syntax error @huggingface/jinja finds in `template`, or undefined when it parses. */
export function jinjaSyntaxError(template: string): TemplateSyntaxError | undefined {
  // `{% generation %}` tags are cut out by the library before lexing; blanking them keeps offsets.
  const source = template.replace(/{%-?\s*(?:end)?generation\s*-?%}/g, (tag) => ' '.repeat(tag.length));
  let tokens: Token[];
  try {
    tokens = tokenize(source);
  } catch (e) {
    return lexerError(source, (e as Error).message);
  }
  try {
    parse(tokens);
    return undefined;
  } catch (e) {
    return parserError(source, tokens, e as Error);
  }
}

function lexerError(source: string, message: string): TemplateSyntaxError {
  if (/end of input|end of comment/.test(message)) {
    // An unterminated string or comment: every longer prefix fails the same way, so point at its opening.
    const opening = unterminatedOpening(source);
    return { message: `${message} (an unclosed quote or comment)`, offset: opening, length: 1 };
  }
  // The lexer stops at the first bad character; every prefix that reaches it fails with the same message.
  let lo = 1;
  let hi = source.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lexFailsWith(source.slice(0, mid), message)) hi = mid;
    else lo = mid + 1;
  }
  return { message, offset: Math.max(0, lo - 1), length: 1 };
}

function lexFailsWith(prefix: string, message: string): boolean {
  try {
    tokenize(prefix);
    return false;
  } catch (e) {
    return (e as Error).message === message;
  }
}

/** Where the last string literal or comment that is never closed opens (the end when none is found). */
function unterminatedOpening(source: string): number {
  let i = 0;
  let inTag = false;
  while (i < source.length) {
    if (!inTag) {
      if (source.startsWith('{#', i)) {
        const close = source.indexOf('#}', i + 2);
        if (close < 0) return i;
        i = close + 2;
      } else if (source.startsWith('{{', i) || source.startsWith('{%', i)) {
        inTag = true;
        i += 2;
      } else i++;
      continue;
    }
    const c = source[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      if (j >= source.length) return i;
      i = j + 1;
    } else if (source.startsWith('}}', i) || source.startsWith('%}', i)) {
      inTag = false;
      i += 2;
    } else i++;
  }
  return Math.max(0, source.length - 1);
}

function parserError(source: string, tokens: Token[], error: Error): TemplateSyntaxError {
  const spans = tokenSpans(source, tokens);
  if (error instanceof TypeError) {
    // The parser ran past the last token: a block or tag that is never closed.
    const open = unclosedBlock(tokens);
    if (open !== undefined) {
      const name = tokens[open]!.value;
      return { message: `{% ${name} %} is never closed: add {% end${name} %}`, ...spans[open]! };
    }
    const last = spans.at(-1) ?? { offset: 0, length: 0 };
    return { message: 'The template ends inside an open tag (a missing %} or }}?)', ...last };
  }
  // The parser reads tokens left to right: it fails the same way on every token prefix that
  // reaches the token it stopped at, so the shortest such prefix ends with that token.
  let lo = 1;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (parseFailsWith(tokens.slice(0, mid), error.message)) hi = mid;
    else lo = mid + 1;
  }
  const at = spans[lo - 1] ?? spans.at(-1) ?? { offset: 0, length: 0 };
  return { message: error.message, ...at };
}

function parseFailsWith(tokens: Token[], message: string): boolean {
  try {
    parse(tokens);
    return false;
  } catch (e) {
    return (e as Error).message === message;
  }
}

const BLOCKS = new Set(['if', 'for', 'macro', 'call', 'filter', 'raw']);

/** The index of the innermost block keyword (`if`, `for`…) whose `end…` never comes. */
function unclosedBlock(tokens: Token[]): number | undefined {
  const open: number[] = [];
  tokens.forEach((token, i) => {
    if (token.type !== 'Identifier' || tokens[i - 1]?.type !== 'OpenStatement') return;
    if (BLOCKS.has(token.value)) open.push(i);
    else if (token.value.startsWith('end') && BLOCKS.has(token.value.slice(3))) open.pop();
  });
  return open.at(-1);
}

const OPENERS: Record<string, string> = { OpenStatement: '{%', OpenExpression: '{{' };
const CLOSERS: Record<string, string> = { CloseStatement: '%}', CloseExpression: '}}' };

/** Each token's offset and length in `source`, found by walking it in token order. */
function tokenSpans(source: string, tokens: Token[]): { offset: number; length: number }[] {
  const spans: { offset: number; length: number }[] = [];
  let at = 0;
  const skipSpace = () => {
    while (at < source.length && /\s/.test(source[at]!)) at++;
  };
  for (const token of tokens) {
    let start: number;
    let end: number;
    if (token.type === 'Text') {
      start = source.indexOf(token.value, at);
      end = start + token.value.length;
    } else if (token.type === 'Comment') {
      start = source.indexOf('{#', at);
      end = source.indexOf('#}', start) + 2;
    } else if (OPENERS[token.type]) {
      start = source.indexOf(OPENERS[token.type]!, at);
      end = start + 2 + (source[start + 2] === '-' ? 1 : 0);
    } else if (CLOSERS[token.type]) {
      skipSpace();
      start = at;
      end = source.indexOf(CLOSERS[token.type]!, at) + 2;
    } else if (token.type === 'StringLiteral') {
      skipSpace();
      start = at;
      const quote = source[at];
      end = at + 1;
      while (end < source.length && source[end] !== quote) end += source[end] === '\\' ? 2 : 1;
      end++;
    } else {
      skipSpace();
      start = source.startsWith(token.value, at) ? at : source.indexOf(token.value, at);
      end = start + token.value.length;
    }
    if (start < 0 || end < start) start = end = at; // should not happen; keep the walk going
    spans.push({ offset: start, length: end - start });
    at = end;
  }
  return spans;
}
