/**
 * ts-morph's values, loaded on first use. ts-morph brings the TypeScript compiler (~37 MB of heap,
 * ~0.3 s to load), and every CLI command, the extension and `perf`'s process import the generator,
 * while only a pipeline with TypeScript modules compiles anything. The compiler's files import
 * ts-morph's values from here and its types from 'ts-morph' itself.
 */
import type * as TsMorph from 'ts-morph';

type Exports = typeof TsMorph;
let loaded: Exports | undefined;

function tsMorph(): Exports {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (above)
  return (loaded ??= require('ts-morph') as Exports);
}

/** Stands for ts-morph's export `name` and loads ts-morph when first touched (its functions bound to it). */
function deferred<K extends keyof Exports>(name: K): Exports[K] {
  const bound = new Map<PropertyKey, unknown>();
  const real = () => tsMorph()[name] as object;
  return new Proxy(function () {} as object, {
    get(_, key) {
      const value: unknown = Reflect.get(real(), key);
      if (typeof value !== 'function') return value;
      if (!bound.has(key)) bound.set(key, (value as (...a: unknown[]) => unknown).bind(real()));
      return bound.get(key);
    },
    construct: (_, args) => Reflect.construct(real() as new (...a: unknown[]) => object, args),
  }) as Exports[K];
}

export const Node = deferred('Node');
export type Node = TsMorph.Node;
export const Project = deferred('Project');
export const SyntaxKind = deferred('SyntaxKind');
export type SyntaxKind = TsMorph.SyntaxKind;
export const ts = deferred('ts');
