// Boolean logic, short-circuit evaluation, nested conditionals.
interface Counter {
  calls: number;
}
function classify(n: number): string {
  return n > 0 ? (n > 100 ? 'big' : 'small') : n < 0 ? 'negative' : n === 0 ? 'zero' : 'nan';
}
function touch(c: Counter): boolean {
  c.calls++;
  return true;
}
export function run(a: boolean, b: boolean, n: number, s: string): string[] {
  const c: Counter = { calls: 0 };
  const r1 = a && touch(c);
  const r2 = b || touch(c);
  return [
    String(a && b),
    String(a || !b),
    String(!(a === b)),
    classify(n),
    String(r1),
    String(r2),
    String(c.calls),
    String(s.length > 0 && s.charAt(0) === s.charAt(s.length - 1)),
  ];
}
