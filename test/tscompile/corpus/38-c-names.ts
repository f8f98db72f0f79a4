// Names that C and C++ headers define as macros or objects (NAN, EOF, errno, stdin, linux…):
// the compiled code must not let the preprocessor rewrite them.
interface EOF {
  stdin: number;
  linux: string;
}
const SIZE_MAX = 3;
function INFINITY(unix: number): number {
  return unix * SIZE_MAX;
}
export function run(NAN: number, BUFSIZ: string): string[] {
  const errno: EOF = { stdin: INFINITY(NAN), linux: BUFSIZ };
  const stdout = [errno.stdin, NAN];
  const linux_ = errno.linux + '!';
  const unix = 'u';
  return [JSON.stringify(errno), String(stdout.length), linux_, unix, String(SIZE_MAX)];
}
