// JSON.stringify escapes: quotes, control characters, lone surrogates; NaN/Infinity → null.
export function run(s: string, n: number, xs: string[]): string[] {
  return [
    JSON.stringify(s),
    JSON.stringify(n),
    JSON.stringify(xs),
    JSON.stringify([n, -n, n * 0]),
    JSON.stringify(true),
    JSON.stringify(new Float32Array([n, 1])),
  ];
}
