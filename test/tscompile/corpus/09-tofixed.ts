// toFixed: exact decimal rounding (ties away from zero on exact halves).
export function run(x: number, d: number): string[] {
  const digits = Number.isFinite(d) ? Math.abs(Math.trunc(d)) % 21 : 2;
  return [x.toFixed(digits), x.toFixed(), (x / 7).toFixed(3), (Math.round(x * 100) / 100).toFixed(2)];
}
