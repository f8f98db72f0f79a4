// for-of over a string visits code points (surrogate pairs together, lone halves alone).
export function run(s: string): string[] {
  const out: string[] = [];
  let count = 0;
  for (const ch of s) {
    count++;
    if (ch.length === 2) out.push(`astral:${ch.charCodeAt(0)},${ch.charCodeAt(1)}`);
  }
  out.push(String(count));
  out.push(String(Array.from(s).length));
  out.push(Array.from(s).reverse().join(''));
  return out;
}
