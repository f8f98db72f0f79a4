// replace / replaceAll with string patterns, including $ substitution patterns and "".
export function run(s: string, search: string, replacement: string): string[] {
  return [
    s.replace(search, replacement),
    s.replaceAll(search, replacement),
    s.replaceAll('', '-'),
    s.replace(search, "[$&|$`|$'|$$]"),
  ];
}
