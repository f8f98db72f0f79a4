/**
 * Graph edits as minimal edits of the pipeline file's text. Each operation changes only the JSON
 * values it is about (jsonc-parser's tree gives their offsets), prints new values in the style of
 * their neighbours (one line where the siblings are one-liners, else indented like them), and the
 * result is reduced to the changed lines, so formatting, key order and everything untouched keeps
 * its exact text, and undo and git diff see only the change. Pure (no VS Code).
 */
import {
  applyEdits,
  findNodeAtLocation,
  modify,
  parseTree,
  type Node as JsonNode,
  type JSONPath,
} from 'jsonc-parser';
import type { NodePosition, Pipeline, Step } from '../../../generator/index.js';

export interface TextEdit {
  offset: number;
  length: number;
  newText: string;
}

export type GraphEdit =
  | { op: 'addStep'; step: Step; position?: NodePosition }
  | { op: 'removeSteps'; names: string[] }
  | { op: 'renameStep'; from: string; to: string }
  | { op: 'addWire'; from: string; to: string }
  | { op: 'removeWires'; indices: number[] }
  /** `value` undefined removes the field. */
  | { op: 'setStepField'; name: string; field: keyof Step; value: unknown }
  | { op: 'moveNodes'; positions: Record<string, NodePosition> }
  /** Forget every stored position: the editor lays the graph out again. */
  | { op: 'clearLayout' };

/** Widest line a one-line value may make (the project's Prettier printWidth). */
const PRINT_WIDTH = 110;

export class GraphEditError extends Error {}

/** The text edits (offsets into `text`, not overlapping, in order) that perform `edit`. */
export function graphEditToTextEdits(text: string, pipeline: Pipeline, edit: GraphEdit): TextEdit[] {
  return minimalEdits(text, applyGraphEdit(text, pipeline, edit));
}

/** The whole new text after `edit`. */
export function applyGraphEdit(text: string, pipeline: Pipeline, edit: GraphEdit): string {
  const stepIndex = (name: string): number => {
    const i = pipeline.steps.findIndex((s) => s.name === name);
    if (i < 0) throw new GraphEditError(`There is no step named "${name}".`);
    return i;
  };
  const ofStep = (ref: string, name: string) => ref.startsWith(`${name}.`);
  switch (edit.op) {
    case 'addStep': {
      if (pipeline.steps.some((s) => s.name === edit.step.name)) {
        throw new GraphEditError(`A step named "${edit.step.name}" already exists.`);
      }
      let out = appendToArray(text, ['steps'], edit.step);
      if (edit.position) out = setValue(out, ['layout', edit.step.name], roundPosition(edit.position));
      return out;
    }
    case 'removeSteps': {
      const steps = edit.names.map(stepIndex);
      const gone = (ref: string) => edit.names.some((name) => ofStep(ref, name));
      const wires = pipeline.wires.flatMap((w, k) => (gone(w.from) || gone(w.to) ? [k] : []));
      let out = removeArrayItems(text, ['wires'], wires);
      out = removeArrayItems(out, ['steps'], steps);
      for (const name of edit.names) {
        if (pipeline.layout?.[name]) out = setValue(out, ['layout', name], undefined);
      }
      return out;
    }
    case 'renameStep': {
      const i = stepIndex(edit.from);
      if (edit.to !== edit.from && pipeline.steps.some((s) => s.name === edit.to)) {
        throw new GraphEditError(`A step named "${edit.to}" already exists.`);
      }
      let out = setValue(text, ['steps', i, 'name'], edit.to);
      pipeline.wires.forEach((w, k) => {
        for (const end of ['from', 'to'] as const) {
          if (ofStep(w[end], edit.from)) {
            out = setValue(out, ['wires', k, end], `${edit.to}${w[end].slice(edit.from.length)}`);
          }
        }
      });
      const at = pipeline.layout?.[edit.from];
      if (at) out = renameKey(out, ['layout'], edit.from, edit.to);
      return out;
    }
    case 'addWire':
      return appendToArray(text, ['wires'], { from: edit.from, to: edit.to });
    case 'removeWires':
      for (const i of edit.indices)
        if (!pipeline.wires[i]) throw new GraphEditError(`There is no wire ${i}.`);
      return removeArrayItems(text, ['wires'], edit.indices);
    case 'setStepField': {
      if (edit.field === 'name') {
        return applyGraphEdit(text, pipeline, { op: 'renameStep', from: edit.name, to: String(edit.value) });
      }
      return setValue(text, ['steps', stepIndex(edit.name), edit.field], edit.value);
    }
    case 'moveNodes': {
      let out = text;
      for (const [key, p] of Object.entries(edit.positions)) {
        out = setValue(out, ['layout', key], roundPosition(p));
      }
      return out;
    }
    case 'clearLayout':
      return setValue(text, ['layout'], undefined);
  }
}

function roundPosition(p: NodePosition): NodePosition {
  return { x: Math.round(p.x), y: Math.round(p.y) };
}

function tree(text: string): JsonNode {
  const root = parseTree(text);
  if (!root) throw new GraphEditError('The file is not JSON; fix the text first.');
  return root;
}

/** Indentation unit of the file (its first indented line), two spaces if none. */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? m[1]! : '  ';
}

/** The white space that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

function column(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

const isOneLine = (text: string, n: JsonNode) => !text.slice(n.offset, n.offset + n.length).includes('\n');

/** Prettier's JSON style: `{ "a": 1 }` and `[1, 2]` when they fit on the line. */
function compact(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compact).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${compact(v)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

/** `value` printed at `startColumn` on a line indented `indent`: one line if it fits, else expanded. */
function print(value: unknown, indent: string, unit: string, startColumn: number, expand = false): string {
  const one = compact(value);
  const container = value !== null && typeof value === 'object';
  if (!container || (!expand && startColumn + one.length <= PRINT_WIDTH)) return one;
  const inner = indent + unit;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => inner + print(v, inner, unit, inner.length));
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const items = entries.map(([k, v]) => {
    const key = `${inner}${JSON.stringify(k)}: `;
    return key + print(v, inner, unit, key.length);
  });
  return `{\n${items.join(',\n')}\n${indent}}`;
}

/** Sets (or with `undefined` removes) the value at `path`, creating missing objects on the way. */
function setValue(text: string, path: JSONPath, value: unknown): string {
  const root = tree(text);
  const node = findNodeAtLocation(root, path);
  if (value === undefined) {
    return node ? applyEdits(text, modify(text, path, undefined, {})) : text;
  }
  const unit = indentUnit(text);
  if (node) {
    const indent = lineIndent(text, node.offset);
    const printed = print(value, indent, unit, column(text, node.offset), !isOneLine(text, node));
    return splice(text, node.offset, node.length, printed);
  }
  const parentPath = path.slice(0, -1);
  const parent = findNodeAtLocation(root, parentPath);
  const key = path[path.length - 1]!;
  if (!parent) return setValue(text, parentPath, { [key]: value });
  if (parent.type !== 'object' || typeof key !== 'string') {
    throw new GraphEditError(`Cannot set ${path.join('.')}: its parent is not an object.`);
  }
  return insertMember(text, parent, `${JSON.stringify(key)}: `, value, unit);
}

function appendToArray(text: string, path: JSONPath, value: unknown): string {
  const array = findNodeAtLocation(tree(text), path);
  if (!array || array.type !== 'array') throw new GraphEditError(`"${path.join('.')}" is not an array.`);
  return insertMember(text, array, '', value, indentUnit(text));
}

/** Adds a last member (`prefix` is `"key": ` in an object) in the style of the ones before it. */
function insertMember(
  text: string,
  container: JsonNode,
  prefix: string,
  value: unknown,
  unit: string,
): string {
  const members = container.children ?? [];
  const last = members[members.length - 1];
  const open = container.offset;
  const close = container.offset + container.length - 1;
  if (!last) {
    // `[]` / `{}`: one line when it fits there, else expanded under the container's line.
    const indent = lineIndent(text, open);
    const inline = `${prefix}${compact(value)}`;
    const [l, r] = container.type === 'array' ? ['[', ']'] : ['{ ', ' }'];
    if (column(text, open) + inline.length + 4 <= PRINT_WIDTH) {
      return splice(text, open, container.length, `${l}${inline}${r}`);
    }
    const inner = indent + unit;
    const member = inner + prefix + print(value, inner, unit, inner.length + prefix.length);
    return splice(text, open, container.length, `${l.trim()}\n${member}\n${indent}${r.trim()}`);
  }
  if (isOneLine(text, container)) {
    // A one-line container stays one line while it fits (`[{ … }]`, `{ "a": 1 }`).
    const member = `, ${prefix}${compact(value)}`;
    const lineEnd = text.indexOf('\n', close);
    const rest = (lineEnd < 0 ? text.length : lineEnd) - close;
    if (column(text, close) + member.length + rest <= PRINT_WIDTH) {
      return splice(text, last.offset + last.length, 0, member);
    }
    const indent = lineIndent(text, open);
    const inner = indent + unit;
    const all = [...members.map((m) => text.slice(m.offset, m.offset + m.length)), prefix + compact(value)];
    const [l, r] = container.type === 'array' ? ['[', ']'] : ['{', '}'];
    return splice(
      text,
      open,
      container.length,
      `${l}\n${all.map((m) => inner + m).join(',\n')}\n${indent}${r}`,
    );
  }
  const memberStart = last.type === 'property' ? last.offset : last.offset;
  const indent = lineIndent(text, memberStart);
  const lastValue = last.type === 'property' ? last.children?.[1] : last;
  const expand = lastValue ? !isOneLine(text, lastValue) && lastValue.type === 'object' : false;
  const printed = prefix + print(value, indent, unit, indent.length + prefix.length, expand && prefix === '');
  return splice(text, last.offset + last.length, 0, `,\n${indent}${printed}`);
}

function removeArrayItems(text: string, path: JSONPath, indices: number[]): string {
  let out = text;
  for (const i of [...indices].sort((a, b) => b - a)) {
    out = applyEdits(out, modify(out, [...path, i], undefined, {}));
  }
  return out;
}

/** Renames a property in place (its value and position kept). */
function renameKey(text: string, path: JSONPath, from: string, to: string): string {
  const value = findNodeAtLocation(tree(text), [...path, from]);
  const key = value?.parent?.children?.[0];
  if (!key) return text;
  return splice(text, key.offset, key.length, JSON.stringify(to));
}

function splice(text: string, offset: number, length: number, insert: string): string {
  return text.slice(0, offset) + insert + text.slice(offset + length);
}

/**
 * The edits that turn `before` into `after`, changed lines only: common lines at both ends are
 * skipped and the middle is compared line by line (longest common subsequence), so two changes far
 * apart (a step removed and its wires) stay two small edits.
 */
export function minimalEdits(before: string, after: string): TextEdit[] {
  if (before === after) return [];
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const offsets = [0];
  for (const line of a) offsets.push(offsets[offsets.length - 1]! + line.length);
  const hunks = diffLines(a.slice(start, endA), b.slice(start, endB));
  return hunks.map((h) => {
    const offset = offsets[start + h.a]!;
    const length = offsets[start + h.a + h.aLen]! - offset;
    return trimEdit(before, { offset, length, newText: b.slice(start + h.b, start + h.b + h.bLen).join('') });
  });
}

/** Lines with their line breaks, so joining them gives the text back. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

interface Hunk {
  a: number;
  aLen: number;
  b: number;
  bLen: number;
}

function diffLines(a: string[], b: string[]): Hunk[] {
  if (a.length * b.length > 4_000_000) return [{ a: 0, aLen: a.length, b: 0, bLen: b.length }];
  // lcs[i][j]: longest common subsequence of a[i..] and b[j..].
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let open: Hunk | undefined;
  const flush = () => {
    if (open && (open.aLen > 0 || open.bLen > 0)) hunks.push(open);
    open = undefined;
  };
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      flush();
      i++;
      j++;
    } else {
      open ??= { a: i, aLen: 0, b: j, bLen: 0 };
      if (j < b.length && (i === a.length || lcs[i * w + j + 1]! >= lcs[(i + 1) * w + j]!)) {
        j++;
        open.bLen++;
      } else {
        i++;
        open.aLen++;
      }
    }
  }
  flush();
  return hunks;
}

/** Drops the characters an edit leaves as they are at its two ends. */
function trimEdit(text: string, edit: TextEdit): TextEdit {
  const old = text.slice(edit.offset, edit.offset + edit.length);
  let s = 0;
  while (s < old.length && s < edit.newText.length && old[s] === edit.newText[s]) s++;
  let e = 0;
  while (
    e < old.length - s &&
    e < edit.newText.length - s &&
    old[old.length - 1 - e] === edit.newText[edit.newText.length - 1 - e]
  ) {
    e++;
  }
  return {
    offset: edit.offset + s,
    length: old.length - s - e,
    newText: edit.newText.slice(s, edit.newText.length - e),
  };
}
