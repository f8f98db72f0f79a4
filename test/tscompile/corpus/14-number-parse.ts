// Number(string): white space, hex/octal/binary, Infinity, exponents, junk → NaN.
export function run(s: string, t: string): number[] {
  const n = Number(s);
  return [
    n,
    Number(`0x${t}`),
    Number(` ${t}e3 `),
    Number(t + '.5'),
    Number(true),
    Number(isNaN(n)),
    Number(Number.isInteger(n)),
    Number(Number.isSafeInteger(n)),
  ];
}
