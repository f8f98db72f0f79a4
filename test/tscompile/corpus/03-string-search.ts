// indexOf/lastIndexOf/includes/startsWith/endsWith with positions.
export function run(s: string, t: string, p: number): string {
  const parts: string[] = [];
  parts.push(String(s.indexOf(t)));
  parts.push(String(s.indexOf(t, p)));
  parts.push(String(s.lastIndexOf(t)));
  parts.push(String(s.includes(t)));
  parts.push(String(s.includes(t, p)));
  parts.push(String(s.startsWith(t)));
  parts.push(String(s.startsWith(t, p)));
  parts.push(String(s.endsWith(t)));
  parts.push(String(s.endsWith(t, p)));
  return parts.join('|');
}
