// split by a string (also "" and limits) and join.
export function run(s: string, sep: string, limit: number): string[] {
  const parts = s.split(sep);
  const limited = s.split(sep, limit);
  const chars = s.split('');
  return [
    String(parts.length),
    parts.join('<>'),
    limited.join('|'),
    String(chars.length),
    chars.reverse().join(''),
  ];
}
