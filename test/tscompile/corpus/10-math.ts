// Math functions that the runtime matches exactly.
export function run(a: number, b: number): number[] {
  return [
    Math.floor(a),
    Math.ceil(a),
    Math.round(a),
    Math.trunc(a),
    Math.abs(a),
    Math.sign(a),
    Math.sqrt(a),
    Math.min(a, b),
    Math.max(a, b),
    Math.max(a, b, 0),
    Math.min(),
    Math.fround(a),
    Math.PI * a,
    Math.round(a * 2.5),
  ];
}
