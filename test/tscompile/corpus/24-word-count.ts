// Counting words with a Map<string, number>, reported in first-seen order.
export function run(text: string): string[] {
  const counts = new Map<string, number>();
  for (const w of text.split(' ')) {
    if (w === '') continue;
    const key = w.toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const out: string[] = [];
  for (const [word, n] of counts) out.push(`${word}:${n}`);
  for (const k of counts.keys()) if (k.length > 3) counts.delete(k);
  out.push(String(counts.size));
  out.push(Array.from(counts.values()).join());
  return out;
}
