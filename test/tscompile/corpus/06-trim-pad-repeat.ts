// trim with JS white space, padStart/padEnd, repeat with a guarded count.
export function run(s: string, n: number): string[] {
  const count = Number.isFinite(n) ? Math.abs(Math.trunc(n)) % 5 : 2;
  return [
    s.trim(),
    s.trimStart(),
    s.trimEnd(),
    s.padStart(count * 3, '*'),
    s.padEnd(count * 4),
    s.padStart(count * 2, ''),
    s.padEnd(count * 5, 'ab€'),
    s.padStart(count * 5 + 1, '🙂.'),
    s.repeat(count),
  ];
}
