// A thrown Error (and built-in RangeErrors) give the same error as in Node.
function check(s: string): string {
  if (s.includes('!')) throw new Error(`bang in ${s}`);
  return s;
}
export function run(s: string, n: number): string {
  if (n < -10) throw new RangeError('too small');
  const checked = check(s);
  if (n > 1e6) return checked.repeat(n * 1e12);
  return checked.repeat(Math.trunc(n) % 3) + (n > 100 ? n.toFixed(n) : '');
}
