// Typed array slice/fill/indexOf/includes and Array.from.
export function run(xs: Float32Array, n: number): string[] {
  const part = xs.slice(1, -1);
  const copy = xs.slice();
  copy.fill(n);
  const back = Array.from(xs);
  return [
    part.join(','),
    copy.join(','),
    String(xs.indexOf(n)),
    String(xs.includes(n)),
    back.map((x) => x * 2).join(),
    String(Array.from(copy).length),
  ];
}
