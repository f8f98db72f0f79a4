// map/filter/reduce/some/every/find/findIndex/forEach with arrow functions.
export function run(xs: number[], limit: number): string {
  const doubled = xs.map((x) => x * 2);
  const indexed = xs.map((x, i) => x + i);
  const small = xs.filter((x) => x < limit);
  const sum = xs.reduce((acc, x) => acc + x, 0);
  const product = xs.length > 0 ? xs.reduce((acc, x) => acc * x) : 1;
  let visited = 0;
  xs.forEach((x, i) => {
    if (x > limit) visited += i;
  });
  const found = xs.find((x) => x > limit) ?? -1;
  const at = xs.findIndex((x) => x === limit);
  return [
    doubled.join(),
    indexed.join(),
    small.join(),
    `${sum}`,
    `${product} ${visited} ${found} ${at}`,
    String(xs.some((x) => x > limit)),
    String(xs.every((x) => x > limit)),
  ].join(';');
}
