// Stable sort with consistent comparators (JS leaves the order of an inconsistent one, e.g.
// a - b over NaN, to the engine); default sort compares strings (numbers too, NaN included).
export function run(all: number[], ws: string[]): string[] {
  const xs = all.filter((x) => Number.isFinite(x));
  const asc = xs.slice().sort((a, b) => a - b);
  const byParity = xs
    .slice()
    .sort((a, b) => (Math.abs(a % 2) === Math.abs(b % 2) ? 0 : Math.abs(a % 2) < Math.abs(b % 2) ? -1 : 1));
  const dflt = all.slice().sort();
  const words = ws.slice().sort();
  const byLength = ws.slice().sort((a, b) => a.length - b.length);
  return [asc.join(), byParity.join(), dflt.join(), words.join('|'), byLength.join('|')];
}
