// ToInt32 / ToUint32 semantics of bitwise operators.
export function run(a: number, b: number): number[] {
  let c = a;
  c |= 0;
  c ^= b;
  return [a & b, a | b, a ^ b, ~a, a << b, a >> b, a >>> b, a | 0, a >>> 0, c];
}
