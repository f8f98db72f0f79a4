// Element conversion: Float32 rounding, Int32/Uint8/Int16 wrap-around, out-of-range writes ignored.
export function run(xs: number[]): string[] {
  const f = new Float32Array(xs);
  const i = Int32Array.from(xs);
  const u = new Uint8Array(xs.length);
  const s = new Int16Array(xs);
  const d = new Float64Array(xs);
  for (let k = 0; k < xs.length; k++) u[k] = xs[k] * 3;
  u[xs.length] = 5;
  let total = 0;
  for (const v of f) total += v;
  return [f.join(), i.join(), u.join(), s.join(), d.join(), String(total), String(f.length)];
}
