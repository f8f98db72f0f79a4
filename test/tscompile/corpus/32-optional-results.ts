// Values that may be undefined: ?? gives the fallback exactly where JS would.
export function run(xs: string[], key: string): string[] {
  const m = new Map<string, number>();
  xs.forEach((x, i) => {
    m.set(x, i);
  });
  const last = xs.slice().pop() ?? '<none>';
  const first = xs.slice().shift() ?? '<none>';
  const long = xs.find((x) => x.length > 3) ?? '<short>';
  const idx = m.get(key) ?? -1;
  return [last, first, long, String(idx), String(m.get(xs.length > 0 ? xs[0] : '') ?? -2)];
}
