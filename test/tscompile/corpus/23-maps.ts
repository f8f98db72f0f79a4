// Map: insertion order, overwrite keeps position, delete, NaN and -0 keys (SameValueZero).
export function run(keys: number[], drop: number): Map<number, number> {
  const m = new Map<number, number>();
  for (let i = 0; i < keys.length; i++) m.set(keys[i], i);
  m.set(-0, 100);
  m.set(NaN, 200);
  m.delete(drop);
  if (m.has(0)) m.set(0, (m.get(0) ?? 0) + 1);
  return m;
}
