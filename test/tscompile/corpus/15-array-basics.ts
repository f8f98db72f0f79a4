// push/pop/shift/unshift/slice/indexOf/includes/concat/reverse/fill.
export function run(xs: number[], x: number): number[][] {
  const a = xs.slice();
  a.push(x);
  a.push(x, 1, 2);
  const popped = a.pop() ?? -1;
  const shifted = a.shift() ?? -2;
  a.unshift(popped + shifted);
  const b = a.concat(xs).reverse();
  const info = [a.indexOf(x), b.indexOf(NaN), Number(b.includes(NaN)), Number(a.includes(x)), a.length];
  return [a, b, info, xs.slice(1, -1), xs.slice(-3), b.slice(2).fill(7)];
}
