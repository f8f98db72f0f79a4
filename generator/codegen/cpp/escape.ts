/**
 * Escaping user-controlled strings (model and tensor names, file names) for the generated C++ and
 * CMake sources. Nothing a user types may change the meaning of generated code, so every such
 * string goes through one of these.
 */

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const QUESTION = 0x3f;
const STAR = 0x2a;
const SLASH = 0x2f;

/**
 * A C++ narrow string literal (with quotes) holding the UTF-8 bytes of `value`. Printable ASCII
 * is kept for readability; everything else becomes a 3-digit octal escape, which, unlike `\x`,
 * cannot swallow a following character. `?` is escaped so no `??x` trigraph can form, and the
 * `/` of `*` `/` is escaped so the literal can never close a surrounding comment.
 */
export function cppStringLiteral(value: string): string {
  let out = '"';
  let previous = -1;
  for (const byte of Buffer.from(value, 'utf8')) {
    if (byte === BACKSLASH) out += '\\\\';
    else if (byte === QUOTE) out += '\\"';
    else if (byte === QUESTION) out += '\\?';
    else if (byte === 0x0a) out += '\\n';
    else if (byte === 0x0d) out += '\\r';
    else if (byte === 0x09) out += '\\t';
    else if (byte === SLASH && previous === STAR) out += '\\057';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += '\\' + byte.toString(8).padStart(3, '0');
    previous = byte;
  }
  return out + '"';
}

/**
 * A CMake quoted argument (with quotes) whose value is exactly `value`: backslashes, quotes and
 * `$` (variable references) are escaped, and line breaks are written as escapes. The value stays
 * one argument, `;` included, as long as it is passed on quoted (or through PARSE_ARGV).
 */
export function cmakeQuotedArgument(value: string): string {
  if (value.includes('\0')) throw new Error('a CMake string cannot contain a NUL character');
  let out = '"';
  for (const ch of value) {
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '$') out += '\\$';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + '"';
}
