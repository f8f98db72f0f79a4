// String.fromCharCode / fromCodePoint and a Caesar shift over letters.
export function run(s: string, k: number): string[] {
  const shift = Number.isFinite(k) ? Math.trunc(k) % 26 : 3;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + shift + 26) % 26) + 97);
    else out += s.charAt(i);
  }
  const cp = Math.abs(Math.trunc(Number.isFinite(k) ? k : 0)) % 0x110000;
  return [
    out,
    String.fromCharCode(k, 65, k + 0x10000),
    String.fromCodePoint(cp),
    String.fromCodePoint(0x1f600, 97),
  ];
}
