// Template literals with numbers, booleans and arrays (Array.prototype.toString).
export function run(n: number, b: boolean, xs: number[], ws: string[]): string {
  return `n=${n} b=${b} xs=${xs} ws=${ws} sum=${n + xs.length}${b ? '!' : '?'}`;
}
