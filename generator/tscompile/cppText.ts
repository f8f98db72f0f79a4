/** How the compiler spells TypeScript names and literals in C++. */

const CPP_RESERVED = new Set(
  (
    'alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class compl ' +
    'concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do ' +
    'double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable namespace ' +
    'new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires return ' +
    'short signed sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef ' +
    'typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq std tsrt NULL final override main ' +
    'int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t size_t assert errno'
  ).split(' '),
);

/**
 * Lower-case names the C and C++ headers the generated code includes, or GCC in its default GNU
 * mode, define as macros (linux, unix, errno, stdin…): the preprocessor would rewrite them.
 */
const C_MACROS = new Set(
  (
    'linux unix i386 errno stdin stdout stderr assert offsetof setjmp longjmp va_arg va_start va_end va_copy ' +
    'alloca isnan isinf isfinite signbit fpclassify isnormal major minor'
  ).split(' '),
);
/** Macro style: the C headers name their macros so (NAN, EOF, INFINITY, SIZE_MAX, BUFSIZ…). */
const MACRO_STYLE = /^[A-Z][A-Z0-9_]*$/;

/**
 * A TS identifier as a C++ identifier: `$` spelled out; C++ keywords, C macro names (every name in
 * macro style among them) and `tsrt_` names suffixed with `_`, and so is every name that already
 * ends in `_` (so `linux_` and the suffixed `linux` stay apart).
 */
export function cppName(name: string): string {
  const n = name.replace(/\$/g, '_S_');
  const clashes =
    CPP_RESERVED.has(n) ||
    C_MACROS.has(n) ||
    MACRO_STYLE.test(n) ||
    n.endsWith('_') ||
    n.startsWith('tsrt_') ||
    n.includes('__');
  return clashes ? `${n}_` : n;
}

/** A JS string (UTF-16 code units, lone surrogates included) as a `tsrt::Str` expression. */
export function cppStringLiteral(s: string): string {
  if (s.length === 0) return 'tsrt::Str()';
  let body = '';
  let afterHex = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    const printable = c >= 0x20 && c < 0x7f && ch !== '"' && ch !== '\\' && ch !== '?';
    if (printable && !(afterHex && /[0-9a-fA-F]/.test(ch))) {
      body += ch;
      afterHex = false;
    } else if (printable) {
      body += `" u"${ch}`; // a hex digit right after a \x escape would join it
      afterHex = false;
    } else {
      body += `\\x${c.toString(16)}`;
      afterHex = true;
    }
  }
  return `tsrt::Str(u"${body}", ${s.length})`;
}

/** A JS number literal as a C++ double literal with the same value. */
export function cppNumberLiteral(v: number): string {
  if (Number.isNaN(v)) return 'tsrt::kNaN';
  if (v === Infinity) return 'tsrt::kInf';
  if (v === -Infinity) return '(-tsrt::kInf)';
  if (Object.is(v, -0)) return '(-0.0)';
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}
