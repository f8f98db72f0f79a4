/**
 * TS-E058 at its place: a chat template's syntax error inside the file that holds the template,
 * a `tokenizer_config.json` (in its `chat_template` string, escapes included) or a Jinja file.
 * The native engine (the parser the steps run) is the source of truth where it can be asked;
 * @huggingface/jinja answers in-process otherwise, and places the native engine's error exactly.
 */
import { dirname, resolve } from 'node:path';
import { parseTree, type Node as JsonNode } from 'jsonc-parser';
import type { Diagnostic } from '../model/diagnostics.js';
import { SourceText } from '../pipeline/source.js';
import { jinjaSyntaxError, type TemplateSyntaxError } from './jinjaSyntax.js';

/** What the native engine says of a template: parsed, or its error (1-based line, code-point column). */
export type NativeTemplateVerdict =
  { ok: true } | { ok: false; message: string; line?: number; column?: number };

/** Asks the native engine; undefined when it cannot be asked (no build of its tool). */
export type NativeTemplateCheck = (template: string) => NativeTemplateVerdict | undefined;

/** The template's syntax error (offsets within the template), native verdict first; undefined when it parses. */
export function templateSyntaxError(
  template: string,
  native?: NativeTemplateCheck,
): (TemplateSyntaxError & { engine: 'native' | '@huggingface/jinja' }) | undefined {
  const js = jinjaSyntaxError(template);
  const verdict = native?.(template);
  if (!verdict) return js && { ...js, engine: '@huggingface/jinja' };
  if (verdict.ok) return undefined; // what the steps run accepts it, whatever the editor's parser says
  const offset =
    verdict.line !== undefined
      ? templateOffset(template, verdict.line, verdict.column ?? 1)
      : (js?.offset ?? 0);
  const length = js?.offset === offset ? js.length : wordLength(template, offset);
  return { message: verdict.message, offset, length, engine: 'native' };
}

/** TS-E058 for each `chat_template` in a tokenizer_config.json's text (a string, or a list of named ones). */
export function tokenizerConfigDiagnostics(
  text: string,
  file: string,
  native?: NativeTemplateCheck,
): Diagnostic[] {
  const root = parseTree(text);
  const value = root?.children?.find((p) => p.children?.[0]?.value === 'chat_template')?.children?.[1];
  if (!value) return [];
  const strings: { node: JsonNode; name?: string }[] = [];
  if (value.type === 'string') strings.push({ node: value });
  for (const entry of value.type === 'array' ? (value.children ?? []) : []) {
    const field = (key: string) => entry.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
    const template = field('template');
    const name = field('name')?.value;
    if (template?.type === 'string')
      strings.push({ node: template, name: typeof name === 'string' ? name : undefined });
  }
  const source = new SourceText(file, text, root);
  return strings.flatMap(({ node, name }) => {
    const error = templateSyntaxError(node.value as string, native);
    if (!error) return [];
    const raw = rawOffsets(text, node.offset);
    const start = raw[error.offset] ?? raw.at(-1)!;
    const end = raw[Math.min(error.offset + error.length, raw.length - 1)]!;
    return [diagnostic(source, start, end, error, name ? `chat template "${name}"` : 'chat template')];
  });
}

/** TS-E058 for a Jinja template file. */
export function jinjaFileDiagnostics(text: string, file: string, native?: NativeTemplateCheck): Diagnostic[] {
  const error = templateSyntaxError(text, native);
  if (!error) return [];
  return [
    diagnostic(
      new SourceText(file, text, undefined),
      error.offset,
      error.offset + error.length,
      error,
      'chat template',
    ),
  ];
}

function diagnostic(
  source: SourceText,
  start: number,
  end: number,
  error: TemplateSyntaxError & { engine: string },
  what: string,
): Diagnostic {
  const by =
    error.engine === 'native' ? "the native engine's parser (what the steps run)" : '@huggingface/jinja';
  return {
    file: source.file,
    range: { start: source.position(start), end: source.position(end) },
    // @huggingface/jinja refuses some Jinja that transformers and the native engine accept: alone, it only warns.
    severity: error.engine === 'native' ? 'error' : 'warning',
    code: error.engine === 'native' ? 'TS-E058' : 'TS-W014',
    message: `The ${what} cannot be parsed (${by}): ${error.message}`,
  };
}

/**
 * For a JSON string literal whose opening quote is at `quote`: the document offset of each UTF-16
 * unit of its decoded value, and one more for its end (the closing quote).
 */
function rawOffsets(text: string, quote: number): number[] {
  const offsets: number[] = [];
  let i = quote + 1;
  while (i < text.length && text[i] !== '"') {
    offsets.push(i);
    i += text[i] !== '\\' ? 1 : text[i + 1] === 'u' ? 6 : 2;
  }
  offsets.push(i);
  return offsets;
}

// The line breaks of Python's str.splitlines, which jinja2 (and so the native engine) counts lines by.
// eslint-disable-next-line no-control-regex -- the file, group and record separators are line breaks there
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;

/** The UTF-16 offset in `template` of a 1-based line and code-point column. */
function templateOffset(template: string, line: number, column: number): number {
  let lineStart = 0;
  for (let l = 1; l < line; l++) {
    LINE_BREAK.lastIndex = lineStart;
    const m = LINE_BREAK.exec(template);
    if (!m) break;
    lineStart = m.index + m[0].length;
  }
  let at = lineStart;
  for (let c = 1; c < column && at < template.length; c++) at += template.codePointAt(at)! > 0xffff ? 2 : 1;
  return at;
}

/** The length of the word or symbol run at `offset` (at least 1): what to underline. */
function wordLength(template: string, offset: number): number {
  const rest = template.slice(offset);
  const m = /^(\w+|[^\w\s]{1,2})/.exec(rest);
  return Math.max(1, m ? m[0].length : 1);
}

/** The Jinja template files (not .json) a pipeline file's steps name with `chatTemplate`, as absolute paths. */
export function jinjaTemplatesNamedBy(pipelineText: string, pipelineFile: string): string[] {
  const root = parseTree(pipelineText);
  const steps = root?.children?.find((p) => p.children?.[0]?.value === 'steps')?.children?.[1];
  const named: string[] = [];
  for (const step of steps?.type === 'array' ? (steps.children ?? []) : []) {
    const ref = step.children?.find((p) => p.children?.[0]?.value === 'chatTemplate')?.children?.[1]?.value;
    if (typeof ref === 'string' && !ref.endsWith('.json'))
      named.push(resolve(dirname(resolve(pipelineFile)), ref));
  }
  return named;
}
