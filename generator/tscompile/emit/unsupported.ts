/**
 * What every part of the emitter shares: `Unsupported` (a construct outside the subset, at its
 * node, with what to write instead; the module compiler turns it into a diagnostic) and `Value`
 * (an emitted C++ expression with its TypeScript type).
 */
import type { Block, Identifier } from 'ts-morph';
import { Node } from '../tsMorph.js';
import type { TsType } from '../types.js';

export class Unsupported extends Error {
  constructor(
    readonly node: Node,
    message: string,
  ) {
    super(message);
  }
}

export interface Value {
  code: string;
  type: TsType;
}

/** A name bound by the standard library (Math, JSON…), not shadowed by the module. */
export function isGlobal(id: Identifier): boolean {
  const decl = id.getSymbol()?.getDeclarations()[0];
  return !decl || decl.getSourceFile().isDeclarationFile();
}

export function endsWithReturnOrThrow(b: Block): boolean {
  const last = b.getStatements().at(-1);
  return !!last && (Node.isReturnStatement(last) || Node.isThrowStatement(last));
}
