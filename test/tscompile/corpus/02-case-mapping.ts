// Full Unicode case mapping: ß → SS, İ → i̇, final sigma, astral letters.
export function run(s: string): string[] {
  return [
    s.toUpperCase(),
    s.toLowerCase(),
    s.toLowerCase().toUpperCase(),
    `${s}Σ`.toLowerCase(),
    `Σ${s}`.toLowerCase(),
  ];
}
