/**
 * The pipeline file's text as a tree with offsets (jsonc-parser), so every diagnostic can point
 * at the exact property or value it is about.
 */
import { findNodeAtLocation, type Node as JsonNode } from 'jsonc-parser';
import type { Position, Range } from '../model/diagnostics.js';

export type JsonPath = (string | number)[];

export class SourceText {
  private readonly lineStarts: number[];

  constructor(
    readonly file: string,
    readonly text: string,
    readonly root: JsonNode | undefined,
  ) {
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.lineStarts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) this.lineStarts.push(i + 1);
    }
  }

  position(offset: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, column: offset - this.lineStarts[lo]! };
  }

  range(offset: number, length: number): Range {
    return { start: this.position(offset), end: this.position(offset + length) };
  }

  /** The node at `path`, or the nearest existing ancestor (so a missing value points at its parent). */
  nodeAt(path: JsonPath): JsonNode | undefined {
    if (!this.root) return undefined;
    for (let n = path.length; n >= 0; n--) {
      const node = findNodeAtLocation(this.root, path.slice(0, n));
      if (node) return node;
    }
    return this.root;
  }

  /** Range of the value at `path` (or its nearest ancestor). */
  rangeOf(path: JsonPath): Range {
    const node = this.nodeAt(path);
    return node ? this.range(node.offset, node.length) : this.range(0, 0);
  }

  /** Range of the property *name* at `path` (for "unknown property" errors); falls back to the value. */
  keyRangeOf(path: JsonPath): Range {
    const node = this.nodeAt(path);
    const key = node?.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
    if (key && path.length > 0) return this.range(key.offset, key.length);
    return this.rangeOf(path);
  }
}
