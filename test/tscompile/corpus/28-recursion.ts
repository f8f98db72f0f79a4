// Calls between module functions, recursion.
function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
function fib(n: number): number {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
function isEven(n: number): boolean {
  return n === 0 ? true : isOdd(n - 1);
}
function isOdd(n: number): boolean {
  return n === 0 ? false : isEven(n - 1);
}
export function run(a: number, b: number): number[] {
  const x = Number.isFinite(a) ? Math.abs(Math.trunc(a)) % 1000 : 12;
  const y = Number.isFinite(b) ? Math.abs(Math.trunc(b)) % 1000 : 18;
  return [gcd(x, y), fib(x % 20), Number(isEven(y % 30))];
}
