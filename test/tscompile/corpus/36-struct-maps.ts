// Maps of objects, objects holding maps and sets; mutation through the map's value.
export interface Stats {
  count: number;
  total: number;
  seen: Set<string>;
}
export function run(words: string[], weights: number[]): string[] {
  const by = new Map<number, Stats>();
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const k = w.length;
    const s: Stats = by.get(k) ?? { count: 0, total: 0, seen: new Set<string>() };
    s.count++;
    s.total += i < weights.length ? weights[i] : 1;
    s.seen.add(w);
    by.set(k, s);
  }
  const out: string[] = [];
  for (const [k, s] of by) out.push(`${k}:${s.count}:${s.total}:${Array.from(s.seen).join('+')}`);
  return out;
}
