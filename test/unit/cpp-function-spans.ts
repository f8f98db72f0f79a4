/**
 * The line spans of C++ function bodies, for the 80-line rule of codebase-rules.test.ts. A brace
 * matcher rather than clang-tidy's readability-function-size: clang-tidy needs a compile database
 * (a configured CMake build) and minutes on CI's 2 cores; this reads the 150 product files in
 * milliseconds. It blanks comments, string and character literals (raw strings included) and
 * preprocessor lines, then takes every `{` that closes a function head (`...) {`, `...) const {`,
 * `...) -> T {`, a constructor's `...) : a_(x) {`) outside another function as a function body.
 */

/** The text with comments, literals and preprocessor lines as spaces; line breaks stay. */
export function blankCppNoise(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  let lineStart = true;
  while (i < text.length) {
    const c = text[i];
    if (lineStart && /^[ \t]*#/.test(text.slice(i, text.indexOf('\n', i) + 1 || text.length))) {
      let end = i;
      do end = text.indexOf('\n', end) + 1 || text.length;
      while (text[end - 2] === '\\' && end < text.length);
      blank(i, end);
      i = end;
      continue;
    }
    lineStart = c === '\n';
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      blank(i, end < 0 ? text.length : end);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === 'R' && text[i + 1] === '"' && !/\w/.test(text[i - 1] ?? '')) {
      const open = text.indexOf('(', i);
      const close = text.indexOf(`)${text.slice(i + 2, open)}"`, open);
      const stop = close < 0 ? text.length : close + open - i;
      blank(i + 2, stop - 1);
      i = stop;
    } else if (c === '"' || (c === "'" && !/[0-9a-fA-F]/.test(text[i - 1] ?? ''))) {
      let k = i + 1;
      while (k < text.length && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

/** A function head ends where its parameter list (or a constructor's last `member(init)`) closes,
 * then qualifiers and a trailing return type. (A constructor whose last initializer is a braced
 * `member{init}` is not seen: none is written so.) */
const FUNCTION_HEAD =
  /\)\s*(?:(?:const|override|final|noexcept|mutable|volatile)\b\s*)*(?:->\s*[^;{}()]+?\s*)?$/;

/** Every function body of a C++ source with its line span (head to closing brace), by name
 * (`Class::Method` as written; the longest when a name repeats). */
export function cppFunctionSpans(text: string): Map<string, number> {
  const code = blankCppNoise(text);
  const spans = new Map<string, number>();
  const lineOf = new Uint32Array(code.length + 1);
  for (let k = 0, line = 0; k < code.length; k++) {
    lineOf[k] = line;
    if (code[k] === '\n') line++;
  }
  const lineAt = (pos: number): number => lineOf[pos] ?? 0;
  // Open braces: each is a function body (with its name and first line) or another block.
  const open: { fn?: { name: string; first: number } }[] = [];
  let headStart = 0;
  let inFunction = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === ';') headStart = i + 1;
    else if (c === '{') {
      const raw = code.slice(headStart, i);
      const head = raw.replace(/^\s*(?:(?:public|private|protected)\s*:)?/, '');
      const paren = head.indexOf('(');
      if (inFunction === 0 && paren >= 0 && FUNCTION_HEAD.test(head)) {
        const name =
          /((?:[\w~]+::)*operator\s*[^\s(]+|~?[\w:~]+)\s*$/.exec(head.slice(0, paren))?.[1] ?? 'anon';
        const first = lineAt(headStart + raw.length - head.length + head.search(/\S/));
        open.push({ fn: { name: name.trim(), first } });
        inFunction++;
      } else {
        open.push({});
      }
      headStart = i + 1;
    } else if (c === '}') {
      const block = open.pop();
      if (block?.fn) {
        inFunction--;
        const n = lineAt(i) - block.fn.first + 1;
        spans.set(block.fn.name, Math.max(spans.get(block.fn.name) ?? 0, n));
      }
      headStart = i + 1;
    }
  }
  return spans;
}
