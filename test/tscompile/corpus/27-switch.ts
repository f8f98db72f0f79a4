// switch on strings and numbers: fallthrough, default in the middle, break.
function kind(s: string): string {
  let out = '';
  switch (s) {
    case 'a':
      out += 'A';
    case 'b':
      out += 'B';
      break;
    default:
      out += 'D';
    case 'c':
      out += 'C';
      break;
    case '':
      return 'empty';
  }
  return out;
}
export function run(s: string, n: number): string {
  let r = kind(s) + kind(s.charAt(0));
  switch (Math.trunc(n) % 4) {
    case 0:
      r += 'zero';
      break;
    case 1:
    case -1:
      r += 'one';
      break;
    case NaN:
      r += 'never';
      break;
    default:
      r += 'other';
  }
  return r;
}
