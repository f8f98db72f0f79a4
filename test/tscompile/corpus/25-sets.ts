// Set: add/has/delete, iteration in insertion order, Array.from.
export function run(xs: string[], probe: string): string {
  const s = new Set<string>(xs);
  const seen = new Set<string>();
  const dups: string[] = [];
  for (const x of xs) {
    if (seen.has(x)) dups.push(x);
    seen.add(x);
  }
  const removed = s.delete(probe);
  let joined = '';
  for (const v of s) joined += `<${v}>`;
  return [
    joined,
    dups.join(','),
    String(removed),
    String(s.size),
    Array.from(seen).join('/'),
    String(s.has(probe)),
  ].join(' ');
}
