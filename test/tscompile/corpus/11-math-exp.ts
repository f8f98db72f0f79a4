// Math.exp as V8 computes it, over the whole range (overflow, underflow, tiny arguments).
export function run(x: number): number[] {
  return [Math.exp(x), Math.exp(x / 100), Math.exp(-x), Math.exp(1), Math.exp(x * 1e-10)];
}
