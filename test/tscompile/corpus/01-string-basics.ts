// length, charAt, charCodeAt, indexing guarded by length, slice with negative indexes.
export function run(s: string, a: number, b: number): string[] {
  const out: string[] = [];
  out.push(`${s.length}`);
  out.push(s.charAt(a));
  out.push(String(s.charCodeAt(a)));
  if (s.length > 0 && Number.isFinite(a)) out.push(s[Math.floor(Math.abs(a)) % s.length]);
  out.push(s.slice(a));
  out.push(s.slice(a, b));
  out.push(s.substring(a, b));
  out.push(s.slice(-2));
  return out;
}
