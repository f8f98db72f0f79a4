// Recursion deeper than the stack allows fails with JavaScript's own RangeError, as in Node,
// instead of crashing the process; shallow recursion is unaffected.
function nest(n: number): string {
  return n === 0 ? '' : nest(n - 1) + 'x';
}
function down(n: number): number {
  return n <= 0 ? 0 : down(n - 1) + 1;
}
export function run(deep: boolean, n: number): string[] {
  const k = Number.isFinite(n) ? Math.abs(Math.trunc(n)) % 300 : 7;
  // Deep only now and then: each deep run fills the whole stack before it fails.
  return [String(nest(deep && k % 50 === 1 ? 100000000 : k).length), String(down(k))];
}
