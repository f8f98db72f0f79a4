/**
 * Reading a pipeline file: JSON syntax (jsonc-parser, with offsets), then the published JSON
 * Schema (ajv). Semantic checks (wires, dtypes, batching…) live in `validate.ts`.
 */
import { readFileSync } from 'node:fs';
import { parseTree, printParseErrorCode, getNodeValue, type ParseError } from 'jsonc-parser';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import schema from '../schema/pipeline.schema.json';
import type { Diagnostic } from '../model/diagnostics.js';
import { SourceText, type JsonPath } from './source.js';
import type { Pipeline } from './types.js';

export interface ParseResult {
  /** Present when the text is JSON of the pipeline's shape (there may still be semantic errors). */
  pipeline?: Pipeline;
  diagnostics: Diagnostic[];
  source: SourceText;
}

let compiled: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  compiled ??= new Ajv({ allErrors: true, strict: false }).compile(withoutPresetEnum(schema));
  return compiled;
}

/**
 * The schema's `step.preset` enum gives editors completion and a squiggle, but here an unknown
 * preset is left to validate.ts: TS-E050 suggests the closest id and the other semantic checks
 * still run, where a schema error would stop at "not one of" a list of every id.
 */
function withoutPresetEnum(s: typeof schema): object {
  const copy = structuredClone(s) as {
    definitions: { step: { properties: { preset: { enum?: unknown } } } };
  };
  delete copy.definitions.step.properties.preset.enum;
  return copy;
}

export function parsePipeline(text: string, file: string): ParseResult {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  const source = new SourceText(file, text, root);
  // The parser's recovery reports one mistake several times at the same place ("property name
  // expected", then "value expected" for `,,`): one error per position.
  const firstAt = errors.filter((e, i) => errors.findIndex((f) => f.offset === e.offset) === i);
  const diagnostics: Diagnostic[] = firstAt.map((e) => ({
    file,
    range: source.range(e.offset, Math.max(e.length, 1)),
    severity: 'error',
    code: 'TS-E001',
    message: `JSON syntax error: ${describeParseError(printParseErrorCode(e.error))}. Fix the JSON at this position.`,
  }));
  if (diagnostics.length > 0 || !root) {
    if (!root && diagnostics.length === 0) {
      diagnostics.push({
        file,
        range: source.range(0, 0),
        severity: 'error',
        code: 'TS-E001',
        message: 'The file is empty. A pipeline file is a JSON object; see docs/PIPELINE.md.',
      });
    }
    return { diagnostics, source };
  }
  const value: unknown = getNodeValue(root);
  const validate = schemaValidator();
  if (!validate(value)) {
    diagnostics.push(...schemaDiagnostics(validate.errors ?? [], source, value));
    return { diagnostics, source };
  }
  return { pipeline: value as Pipeline, diagnostics, source };
}

export function loadPipeline(path: string): ParseResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const source = new SourceText(path, '', undefined);
    return {
      source,
      diagnostics: [
        {
          file: path,
          range: source.range(0, 0),
          severity: 'error',
          code: 'TS-E001',
          message: `Cannot read the pipeline file (${(e as NodeJS.ErrnoException).code ?? String(e)}). Check the path.`,
        },
      ],
    };
  }
  return parsePipeline(text, path);
}

function describeParseError(code: string): string {
  // jsonc-parser's codes are CamelCase identifiers; spell them as words.
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function toPath(instancePath: string): JsonPath {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describePath(path: JsonPath, value: unknown): string {
  // "steps[1] (preprocessing).inputs[0]" reads better than a JSON pointer.
  let out = '';
  let cur: unknown = value;
  for (const p of path) {
    cur = (cur as Record<string | number, unknown> | undefined)?.[p];
    if (typeof p === 'number') {
      out += `[${p}]`;
      const name = (cur as { name?: unknown } | undefined)?.name;
      if (typeof name === 'string') out += ` (${name})`;
    } else out += out ? `.${p}` : p;
  }
  return out || 'the pipeline';
}

function schemaDiagnostics(errors: ErrorObject[], source: SourceText, value: unknown): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  // oneOf failures repeat each branch's complaint; report the value once, plainly.
  const oneOfPaths = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  for (const e of errors) {
    const path = toPath(e.instancePath);
    const where = describePath(path, value);
    let d: Omit<Diagnostic, 'file'>;
    if (oneOfPaths.has(e.instancePath) && e.keyword !== 'oneOf') continue;
    if (e.keyword === 'required') {
      const prop = (e.params as { missingProperty: string }).missingProperty;
      d = {
        range: source.rangeOf(path),
        severity: 'error',
        code: 'TS-E002',
        message: `${where} needs the property "${prop}". Add it (see docs/PIPELINE.md).`,
      };
    } else if (e.keyword === 'additionalProperties') {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      d = {
        range: source.keyRangeOf([...path, prop]),
        severity: 'error',
        code: 'TS-E004',
        message: `"${prop}" is not a property of ${where}. Remove it or check its spelling.`,
      };
    } else if (e.keyword === 'const' && path.length === 1 && path[0] === 'version') {
      d = {
        range: source.rangeOf(path),
        severity: 'error',
        code: 'TS-E005',
        message: `This Triton Studio reads pipeline format version 1. Set "version": 1.`,
      };
    } else if ((e.keyword === 'pattern' || e.keyword === 'maxLength') && path[path.length - 1] === 'name') {
      const value = JSON.stringify(source.nodeAt(path)?.value);
      d = {
        range: source.rangeOf(path),
        severity: 'error',
        code: 'TS-E040',
        message:
          `${value} cannot be a Triton model name here: it becomes a folder, a backend library name and part of "step.PORT" ` +
          "references. Use letters, digits, '_' and '-' (not first), at most 128 characters.",
      };
    } else {
      const allowed =
        e.keyword === 'enum'
          ? `: use one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
          : e.keyword === 'oneOf'
            ? ': use true, false or an object'
            : e.keyword === 'pattern'
              ? ": use letters, digits, '_' and '-' only, not starting with '-'"
              : `: it ${e.message ?? 'is invalid'}`;
      d = {
        range: source.rangeOf(path),
        severity: 'error',
        code: 'TS-E003',
        message: `${where} is not valid${allowed}.`,
      };
    }
    const key = `${d.code}|${d.range.start.line}:${d.range.start.column}|${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ file: source.file, ...d });
  }
  return out;
}
