// while, do-while, for with break/continue.
export function run(n: number, s: string): number[] {
  const limit = Number.isFinite(n) ? Math.abs(Math.trunc(n)) % 50 : 7;
  let a = 0;
  let i = 0;
  while (true) {
    i++;
    if (i > limit) break;
    if (i % 3 === 0) continue;
    a += i;
  }
  let b = 0;
  do {
    b += 2;
  } while (b < limit);
  let vowels = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charAt(k);
    if (c === ' ') continue;
    if ('aeiou'.includes(c)) vowels++;
    if (vowels > 5) break;
  }
  return [a, b, vowels, i];
}
