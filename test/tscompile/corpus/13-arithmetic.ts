// + - * / % with NaN, Infinity and -0; compound assignment; comparisons.
export function run(a: number, b: number): number[] {
  let x = a;
  x += b;
  x -= 1;
  x *= 2;
  x /= 3;
  x %= 7;
  const flags = [a < b, a <= b, a > b, a >= b, a === b, a !== b];
  let bits = 0;
  for (const f of flags) bits = bits * 2 + (f ? 1 : 0);
  return [a + b, a - b, a * b, a / b, a % b, -a, x, bits, 0 * -1, -a * 0, a % -b];
}
