// Number → string exactly as JS prints it (shortest round trip, exponent rules).
export function run(x: number, y: number): string[] {
  return [
    String(x),
    x.toString(),
    `${x / 3}`,
    '' + x * y,
    String(x / 1e10),
    String(x * 1e15),
    String(-x),
    (x + y).toString(),
  ];
}
