// Interfaces, nested objects, arrays of objects, JSON.stringify of known shapes.
export interface Score {
  label: string;
  value: number;
}
export interface Report {
  title: string;
  ok: boolean;
  scores: Score[];
  best: Score;
}
export function run(title: string, values: number[]): string {
  const scores: Score[] = values.map((v, i) => ({ label: `l${i}`, value: v }));
  let best: Score = { label: 'none', value: -Infinity };
  for (const s of scores) if (s.value > best.value) best = s;
  const report: Report = { title, ok: scores.length > 0, scores, best };
  return JSON.stringify(report);
}
