// JavaScript semantics for C++ compiled from TypeScript steps and hooks (generator/tscompile).
// Strings are UTF-16 (std::u16string: length, indexing and slicing count code units as JS does),
// numbers are doubles printed by ECMAScript's Number::toString, Math.exp is fdlibm's (what V8
// runs), case mapping comes from tables generated from Node itself. Differences from Node that
// cannot be avoided at compile time (reading outside an array) raise an error for the request
// instead of continuing with `undefined`; docs/HOOKS.md lists them. Header-only: the generated
// code and the differential harness include it directly.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "triton_studio/ts_case_tables.h"

namespace tsrt {

using Str = std::u16string;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
// The element argument of array methods takes the array's type (no deduction from a literal).
template <class T>
struct Same {
  using type = T;
};
template <class T>
using Elem = typename Same<T>::type;

// ---------------------------------------------------------------------------------------------
// Errors. `throw new Error(m)` in TS becomes Error{"Error", m}; built-ins throw RangeError /
// TypeError as Node does. The step turns it into a Triton error for that request only.

std::string toUtf8(const Str& s);

struct Error : std::exception {
  Str name;
  Str message;
  std::string text;
  Error(Str n, Str m) : name(std::move(n)), message(std::move(m)) {
    text = toUtf8(name) + ": " + toUtf8(message);
  }
  const char* what() const noexcept override { return text.c_str(); }
};

[[noreturn]] inline void throwError(const Str& message) { throw Error(u"Error", message); }
[[noreturn]] inline void throwRangeError(const Str& message) { throw Error(u"RangeError", message); }
[[noreturn]] inline void throwTypeError(const Str& message) { throw Error(u"TypeError", message); }
// Where Node would go on with `undefined`, compiled code stops the request (docs/HOOKS.md).
[[noreturn]] inline void throwUndefined(const Str& what) {
  throw Error(u"UndefinedValueError", what + u" (Node would continue with undefined)");
}

inline Str ascii(const char* s) { return Str(s, s + std::strlen(s)); }
inline Str ascii(const std::string& s) { return Str(s.begin(), s.end()); }

// ---------------------------------------------------------------------------------------------
// UTF-8 <-> UTF-16, as Node's Buffer does it: invalid UTF-8 decodes to U+FFFD per maximal
// subpart (WHATWG), lone surrogates encode as U+FFFD.

inline Str fromUtf8(std::string_view in) {
  Str out;
  out.reserve(in.size());
  size_t i = 0, n = in.size();
  while (i < n) {
    unsigned char b = static_cast<unsigned char>(in[i]);
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    int need = 0;
    char32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
      cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      cp = b & 0x0F;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      cp = b & 0x07;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool ok = true;
    for (int k = 0; k < need; ++k, ++j) {
      if (j >= n) {
        ok = false;
        break;
      }
      unsigned char c = static_cast<unsigned char>(in[j]);
      unsigned char l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
      if (c < l || c > h) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      i = j;  // the maximal subpart is replaced by one U+FFFD
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i = j;
  }
  return out;
}

inline void appendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

inline bool isHigh(char16_t c) { return c >= 0xD800 && c <= 0xDBFF; }
inline bool isLow(char16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

// The code point at i (a lone surrogate stands for itself) and how many units it takes.
inline char32_t codePointAt(const Str& s, size_t i, size_t* units) {
  char16_t c = s[i];
  if (isHigh(c) && i + 1 < s.size() && isLow(s[i + 1])) {
    *units = 2;
    return 0x10000 + ((static_cast<char32_t>(c) - 0xD800) << 10) + (s[i + 1] - 0xDC00);
  }
  *units = 1;
  return c;
}

inline std::string toUtf8(const Str& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
    appendUtf8(out, cp);
    i += units;
  }
  return out;
}

inline void appendCodePoint(Str& out, char32_t cp) {
  if (cp >= 0x10000) {
    cp -= 0x10000;
    out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
  } else {
    out.push_back(static_cast<char16_t>(cp));
  }
}

// ---------------------------------------------------------------------------------------------
// Numbers.

// ECMAScript Number::toString(10): the shortest digits that round-trip (std::to_chars gives
// them), laid out by the spec's exponent rules.
inline Str numberToString(double v) {
  if (std::isnan(v)) return u"NaN";
  if (v == 0) return u"0";
  if (std::isinf(v)) return v > 0 ? u"Infinity" : u"-Infinity";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  bool negative = s[0] == '-';
  if (negative) s.erase(0, 1);
  size_t e = s.find('e');
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits.push_back(s[i]);
  int exponent = std::atoi(s.c_str() + e + 1);
  int k = static_cast<int>(digits.size());
  int n = exponent + 1;
  std::string out;
  if (k <= n && n <= 21) {
    out = digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out = digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out = "0." + std::string(-n, '0') + digits;
  } else {
    out = digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += n - 1 >= 0 ? "e+" : "e-";
    out += std::to_string(std::abs(n - 1));
  }
  return ascii((negative ? "-" : "") + out);
}

inline double toIntegerOrInfinity(double v) {
  if (std::isnan(v)) return 0;
  if (std::isinf(v)) return v;
  double t = std::trunc(v);
  return t == 0 ? 0 : t;
}

inline int32_t toInt32(double v) {
  if (!std::isfinite(v)) return 0;
  double t = std::trunc(v);
  double m = std::fmod(t, 4294967296.0);
  if (m < 0) m += 4294967296.0;
  uint32_t u = static_cast<uint32_t>(m);
  return static_cast<int32_t>(u);
}
inline uint32_t toUint32(double v) { return static_cast<uint32_t>(toInt32(v)); }

inline double shl(double a, double b) { return static_cast<int32_t>(toUint32(a) << (toUint32(b) & 31)); }
inline double sar(double a, double b) { return toInt32(a) >> (toUint32(b) & 31); }
inline double shr(double a, double b) { return toUint32(a) >> (toUint32(b) & 31); }
inline double bitAnd(double a, double b) { return toInt32(a) & toInt32(b); }
inline double bitOr(double a, double b) { return toInt32(a) | toInt32(b); }
inline double bitXor(double a, double b) { return toInt32(a) ^ toInt32(b); }
inline double bitNot(double a) { return ~toInt32(a); }
inline double mod(double a, double b) { return std::fmod(a, b); }

// Math.round: the nearest integer, ties toward +Infinity, keeping -0.
inline double mathRound(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  if (x > 0 && x < 0.5) return 0.0;
  if (x < 0 && x >= -0.5) return -0.0;
  double r = std::floor(x);
  if (x - r >= 0.5) r += 1;
  return r;
}
inline double mathMax(std::initializer_list<double> xs) {
  double r = -kInf;
  for (double x : xs) {
    if (std::isnan(x)) return kNaN;
    if (x > r || (x == 0 && r == 0 && !std::signbit(x))) r = x;
  }
  return r;
}
inline double mathMin(std::initializer_list<double> xs) {
  double r = kInf;
  for (double x : xs) {
    if (std::isnan(x)) return kNaN;
    if (x < r || (x == 0 && r == 0 && std::signbit(x))) r = x;
  }
  return r;
}
inline double mathSign(double x) {
  if (std::isnan(x) || x == 0) return x;
  return x > 0 ? 1 : -1;
}
inline double fround(double x) { return static_cast<double>(static_cast<float>(x)); }

// Math.exp as V8 computes it (fdlibm's algorithm: argument reduction by ln2, a degree-5
// polynomial, V8's exact answer for exp(1)), so softmax scores match Node bit for bit.
inline double mathExp(double x) {
  static const double halF[2] = {0.5, -0.5};
  static const double ln2HI[2] = {6.93147180369123816490e-01, -6.93147180369123816490e-01};
  static const double ln2LO[2] = {1.90821492927058770002e-10, -1.90821492927058770002e-10};
  const double huge = 1.0e+300, twom1000 = 9.33263618503218878990e-302;
  const double o_threshold = 7.09782712893383973096e+02, u_threshold = -7.45133219101941108420e+02;
  const double invln2 = 1.44269504088896338700e+00;
  const double P1 = 1.66666666666666019037e-01, P2 = -2.77777777770155933842e-03,
               P3 = 6.61375632143793436117e-05, P4 = -1.65339022054652515390e-06,
               P5 = 4.13813679705723846039e-08;
  const double E = 2.718281828459045;
  const double two1023 = 8.988465674311579539e307;
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  uint32_t hx = static_cast<uint32_t>(bits >> 32);
  int xsb = (hx >> 31) & 1;
  hx &= 0x7FFFFFFF;
  double hi = 0, lo = 0, c, t, y, twopk;
  int k = 0;
  if (hx >= 0x40862E42) {
    if (hx >= 0x7FF00000) {
      if (((hx & 0xFFFFF) | static_cast<uint32_t>(bits)) != 0) return x + x;
      return xsb == 0 ? x : 0.0;
    }
    if (x > o_threshold) return huge * huge;
    if (x < u_threshold) return twom1000 * twom1000;
  }
  if (hx > 0x3FD62E42) {
    if (hx < 0x3FF0A2B2) {
      if (x == 1.0) return E;
      hi = x - ln2HI[xsb];
      lo = ln2LO[xsb];
      k = 1 - xsb - xsb;
    } else {
      k = static_cast<int>(invln2 * x + halF[xsb]);
      t = k;
      hi = x - t * ln2HI[0];
      lo = t * ln2LO[0];
    }
    x = hi - lo;
  } else if (hx < 0x3E300000) {
    if (huge + x > 1.0) return 1.0 + x;
  } else {
    k = 0;
  }
  t = x * x;
  uint64_t pk = k >= -1021 ? static_cast<uint64_t>(0x3FF00000 + (k << 20)) << 32
                           : static_cast<uint64_t>(0x3FF00000 + ((k + 1000) << 20)) << 32;
  std::memcpy(&twopk, &pk, 8);
  c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k == 0) return 1.0 - ((x * c) / (c - 2.0) - x);
  y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
  if (k >= -1021) {
    if (k == 1024) return y * 2.0 * two1023;
    return y * twopk;
  }
  return y * twopk * twom1000;
}

// Number.prototype.toFixed: exact decimal of the double, ties away from zero (the spec picks the
// larger n), as V8 prints it.
inline Str toFixed(double x, double fractionDigits) {
  double f = toIntegerOrInfinity(fractionDigits);
  if (f < 0 || f > 100) throwRangeError(u"toFixed() digits argument must be between 0 and 100");
  if (std::isnan(x)) return u"NaN";
  if (std::fabs(x) >= 1e21) return numberToString(x);
  int digits = static_cast<int>(f);
  bool negative = x < 0;
  double a = std::fabs(x);
  // Exact expansion: a double has at most 1074 fraction digits.
  std::vector<char> buf(1400);
  std::snprintf(buf.data(), buf.size(), "%.1100f", a);
  std::string s(buf.data());
  size_t dot = s.find('.');
  std::string intPart = s.substr(0, dot), frac = s.substr(dot + 1);
  std::string kept = intPart + frac.substr(0, digits);
  bool roundUp = frac[digits] >= '5';
  if (roundUp) {
    int i = static_cast<int>(kept.size()) - 1;
    while (i >= 0 && kept[i] == '9') kept[i--] = '0';
    if (i < 0)
      kept.insert(kept.begin(), '1');
    else
      kept[i]++;
  }
  size_t intLen = kept.size() - digits;
  std::string out = kept.substr(0, intLen);
  if (digits > 0) out += "." + kept.substr(intLen);
  return ascii((negative ? "-" : "") + out);
}

// Number(string): StringToNumber (white space trimmed, 0x/0o/0b, Infinity, else NaN).
Str trim(const Str& s);
inline double stringToNumber(const Str& input) {
  Str s = trim(input);
  if (s.empty()) return 0;
  std::string a;
  for (char16_t c : s) {
    if (c > 0x7F) return kNaN;
    a.push_back(static_cast<char>(c));
  }
  if (a.size() > 2 && a[0] == '0' && (a[1] == 'x' || a[1] == 'X' || a[1] == 'o' || a[1] == 'O' || a[1] == 'b' || a[1] == 'B')) {
    int base = (a[1] == 'x' || a[1] == 'X') ? 16 : (a[1] == 'o' || a[1] == 'O') ? 8 : 2;
    double v = 0;
    for (size_t i = 2; i < a.size(); ++i) {
      int d;
      char c = a[i];
      if (c >= '0' && c <= '9') d = c - '0';
      else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      else return kNaN;
      if (d >= base) return kNaN;
      v = v * base + d;  // exact up to 2^53; beyond, JS rounds the same way only for base 2/8/16 powers
    }
    return v;
  }
  size_t i = 0;
  bool neg = false;
  if (a[i] == '+' || a[i] == '-') neg = a[i++] == '-';
  std::string rest = a.substr(i);
  if (rest == "Infinity") return neg ? -kInf : kInf;
  // StrUnsignedDecimalLiteral: digits [. digits] [e [+-] digits] | . digits [exponent]
  size_t j = 0, intDigits = 0, fracDigits = 0;
  while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j, ++intDigits;
  if (j < rest.size() && rest[j] == '.') {
    ++j;
    while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j, ++fracDigits;
  }
  if (intDigits + fracDigits == 0) return kNaN;
  if (j < rest.size() && (rest[j] == 'e' || rest[j] == 'E')) {
    ++j;
    if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) ++j;
    size_t expDigits = 0;
    while (j < rest.size() && rest[j] >= '0' && rest[j] <= '9') ++j, ++expDigits;
    if (expDigits == 0) return kNaN;
  }
  if (j != rest.size()) return kNaN;
  double v = std::strtod(rest.c_str(), nullptr);
  return neg ? -v : v;
}

// ---------------------------------------------------------------------------------------------
// Strings.

inline Str toStr(const Str& s) { return s; }
inline Str toStr(double v) { return numberToString(v); }
inline Str toStr(bool b) { return b ? u"true" : u"false"; }

inline bool isJsWhiteSpace(char16_t c) {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}
inline Str trimStart(const Str& s) {
  size_t i = 0;
  while (i < s.size() && isJsWhiteSpace(s[i])) ++i;
  return s.substr(i);
}
inline Str trimEnd(const Str& s) {
  size_t j = s.size();
  while (j > 0 && isJsWhiteSpace(s[j - 1])) --j;
  return s.substr(0, j);
}
inline Str trim(const Str& s) { return trimEnd(trimStart(s)); }

// Relative index (slice, at): negative counts from the end, clamped to [0, len].
inline size_t relIndex(double v, size_t len) {
  double r = toIntegerOrInfinity(v);
  double l = static_cast<double>(len);
  if (r < 0) r = std::max(0.0, l + r);
  return static_cast<size_t>(std::min(r, l));
}
inline size_t clampIndex(double v, size_t len) {
  double r = toIntegerOrInfinity(v);
  return static_cast<size_t>(std::min(std::max(r, 0.0), static_cast<double>(len)));
}

inline Str slice(const Str& s, double start) { return s.substr(relIndex(start, s.size())); }
inline Str slice(const Str& s, double start, double end) {
  size_t a = relIndex(start, s.size()), b = relIndex(end, s.size());
  return a < b ? s.substr(a, b - a) : Str();
}
inline Str substring(const Str& s, double start) { return s.substr(clampIndex(start, s.size())); }
inline Str substring(const Str& s, double start, double end) {
  size_t a = clampIndex(start, s.size()), b = clampIndex(end, s.size());
  if (a > b) std::swap(a, b);
  return s.substr(a, b - a);
}
inline Str charAt(const Str& s, double i) {
  double p = toIntegerOrInfinity(i);
  if (p < 0 || p >= static_cast<double>(s.size())) return Str();
  return Str(1, s[static_cast<size_t>(p)]);
}
inline double charCodeAt(const Str& s, double i) {
  double p = toIntegerOrInfinity(i);
  if (p < 0 || p >= static_cast<double>(s.size())) return kNaN;
  return s[static_cast<size_t>(p)];
}
// s[i]: a one-unit string; outside the string Node gives undefined, compiled code an error.
inline Str strIndex(const Str& s, double i) {
  if (!(i >= 0 && i < static_cast<double>(s.size()) && i == std::trunc(i)))
    throwUndefined(u"string index " + numberToString(i) + u" is outside the string");
  return Str(1, s[static_cast<size_t>(i)]);
}
inline double indexOf(const Str& s, const Str& search, double from = 0) {
  size_t start = clampIndex(from, s.size());
  size_t r = s.find(search, start);
  return r == Str::npos ? -1.0 : static_cast<double>(r);
}
inline double lastIndexOf(const Str& s, const Str& search) {
  size_t r = s.rfind(search);
  return r == Str::npos ? -1.0 : static_cast<double>(r);
}
inline bool includes(const Str& s, const Str& search, double from = 0) { return indexOf(s, search, from) >= 0; }
inline bool startsWith(const Str& s, const Str& search, double pos = 0) {
  size_t p = clampIndex(pos, s.size());
  return s.size() - p >= search.size() && s.compare(p, search.size(), search) == 0;
}
inline bool endsWith(const Str& s, const Str& search) {
  return s.size() >= search.size() && s.compare(s.size() - search.size(), search.size(), search) == 0;
}
inline bool endsWith(const Str& s, const Str& search, double endPos) {
  size_t e = std::isnan(endPos) ? 0 : clampIndex(endPos, s.size());
  return e >= search.size() && s.compare(e - search.size(), search.size(), search) == 0;
}
inline Str repeat(const Str& s, double count) {
  double n = toIntegerOrInfinity(count);
  if (n < 0 || std::isinf(n)) throwRangeError(u"Invalid count value: " + numberToString(count));
  if (s.empty() || n == 0) return Str();
  if (static_cast<double>(s.size()) * n > 536870888.0) throwRangeError(u"Invalid string length");
  Str out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) out += s;
  return out;
}
inline Str pad(const Str& s, double maxLength, const Str& fill, bool atStart) {
  double m = toIntegerOrInfinity(maxLength);
  if (m <= static_cast<double>(s.size()) || fill.empty()) return s;
  if (m > 536870888.0) throwRangeError(u"Invalid string length");
  size_t fillLen = static_cast<size_t>(m) - s.size();
  Str filler;
  while (filler.size() < fillLen) filler += fill;
  filler.resize(fillLen);
  return atStart ? filler + s : s + filler;
}
inline Str padStart(const Str& s, double n, const Str& fill = u" ") { return pad(s, n, fill, true); }
inline Str padEnd(const Str& s, double n, const Str& fill = u" ") { return pad(s, n, fill, false); }

// GetSubstitution for a string pattern: $$, $&, $`, $' (no capture groups).
inline Str substitution(const Str& matched, const Str& s, size_t position, const Str& replacement) {
  Str out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    char16_t c = replacement[i];
    if (c == u'$' && i + 1 < replacement.size()) {
      char16_t n = replacement[i + 1];
      if (n == u'$') {
        out.push_back(u'$');
        ++i;
        continue;
      }
      if (n == u'&') {
        out += matched;
        ++i;
        continue;
      }
      if (n == u'`') {
        out += s.substr(0, position);
        ++i;
        continue;
      }
      if (n == u'\'') {
        size_t tail = std::min(s.size(), position + matched.size());
        out += s.substr(tail);
        ++i;
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}
inline Str replace(const Str& s, const Str& search, const Str& replacement) {
  size_t p = s.find(search);
  if (p == Str::npos) return s;
  return s.substr(0, p) + substitution(search, s, p, replacement) + s.substr(p + search.size());
}
inline Str replaceAll(const Str& s, const Str& search, const Str& replacement) {
  std::vector<size_t> positions;
  size_t advance = std::max<size_t>(1, search.size());
  size_t p = s.find(search, 0);
  while (p != Str::npos) {
    positions.push_back(p);
    p = p + advance > s.size() ? Str::npos : s.find(search, p + advance);
  }
  Str out;
  size_t end = 0;
  for (size_t q : positions) {
    out += s.substr(end, q - end);
    out += substitution(search, s, q, replacement);
    end = q + search.size();
  }
  if (end < s.size()) out += s.substr(end);
  return out;
}
inline Str fromCharCode(std::initializer_list<double> codes) {
  Str out;
  for (double c : codes) out.push_back(static_cast<char16_t>(toUint32(c) & 0xFFFF));
  return out;
}
inline Str fromCodePoint(std::initializer_list<double> cps) {
  Str out;
  for (double c : cps) {
    if (!(c >= 0 && c <= 0x10FFFF && c == std::trunc(c)))
      throwRangeError(u"Invalid code point " + numberToString(c));
    appendCodePoint(out, static_cast<char32_t>(c));
  }
  return out;
}

template <class Table, size_t N>
inline const case_tables::CaseMapping* findMapping(const Table (&table)[N], char32_t cp) {
  auto it = std::lower_bound(table, table + N, cp, [](const case_tables::CaseMapping& m, char32_t v) { return m.cp < v; });
  return it != table + N && it->cp == cp ? it : nullptr;
}
template <size_t N>
inline bool inRanges(const case_tables::CodePointRange (&table)[N], char32_t cp) {
  auto it = std::upper_bound(table, table + N, cp, [](char32_t v, const case_tables::CodePointRange& r) { return v < r.first; });
  return it != table && (it - 1)->last >= cp;
}

inline Str toUpperCase(const Str& s) {
  Str out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (cp < 0x80) {
      out.push_back(cp >= 'a' && cp <= 'z' ? static_cast<char16_t>(cp - 32) : static_cast<char16_t>(cp));
    } else if (auto m = findMapping(case_tables::kUpper, cp)) {
      out.append(m->units, m->length);
    } else {
      out.append(s, i, units);
    }
    i += units;
  }
  return out;
}

// Final_Sigma (Unicode 3.13): Σ lowercases to ς after a cased letter (case-ignorables skipped)
// when no cased letter follows.
inline bool isFinalSigma(const Str& s, size_t at) {
  bool before = false;
  for (size_t i = at; i > 0;) {
    size_t j = i - 1;
    if (isLow(s[j]) && j > 0 && isHigh(s[j - 1])) --j;
    size_t units;
    char32_t cp = codePointAt(s, j, &units);
    if (!inRanges(case_tables::kCaseIgnorable, cp)) {
      before = inRanges(case_tables::kCased, cp);
      break;
    }
    i = j;
  }
  if (!before) return false;
  for (size_t i = at + 1; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (!inRanges(case_tables::kCaseIgnorable, cp)) return !inRanges(case_tables::kCased, cp);
    i += units;
  }
  return true;
}

inline Str toLowerCase(const Str& s) {
  Str out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (cp < 0x80) {
      out.push_back(cp >= 'A' && cp <= 'Z' ? static_cast<char16_t>(cp + 32) : static_cast<char16_t>(cp));
    } else if (cp == 0x3A3 && isFinalSigma(s, i)) {
      out.push_back(0x3C2);
    } else if (auto m = findMapping(case_tables::kLower, cp)) {
      out.append(m->units, m->length);
    } else {
      out.append(s, i, units);
    }
    i += units;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Arrays: reference types as in JS (a shared vector), so aliasing behaves the same.

template <class T>
struct Array {
  std::shared_ptr<std::vector<T>> p;
  Array() : p(std::make_shared<std::vector<T>>()) {}
  Array(std::initializer_list<T> items) : p(std::make_shared<std::vector<T>>(items)) {}
  explicit Array(std::vector<T> items) : p(std::make_shared<std::vector<T>>(std::move(items))) {}
  size_t size() const { return p->size(); }
  double length() const { return static_cast<double>(p->size()); }
  std::vector<T>& v() const { return *p; }
  T& at(double i) const {
    if (!(i >= 0 && i < static_cast<double>(p->size()) && i == std::trunc(i)))
      throwUndefined(u"array index " + numberToString(i) + u" is outside the array");
    return (*p)[static_cast<size_t>(i)];
  }
  // a[i] = x: writing at the length appends (JS grows the array); further out would leave holes.
  T& put(double i) const {
    if (i == static_cast<double>(p->size())) {
      p->emplace_back();
      return p->back();
    }
    return at(i);
  }
  bool operator==(const Array& o) const { return p == o.p; }
  bool operator!=(const Array& o) const { return p != o.p; }
};

// SameValueZero / strict equality helpers (NaN: includes finds it, indexOf does not).
template <class T>
inline bool strictEquals(const T& a, const T& b) { return a == b; }
template <class T>
inline bool sameValueZero(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return a == b;
}

template <class T>
inline double push(const Array<T>& a, Elem<T> x) {
  a.p->push_back(std::move(x));
  return a.length();
}
template <class T>
inline std::optional<T> pop(const Array<T>& a) {
  if (a.p->empty()) return std::nullopt;
  T x = std::move(a.p->back());
  a.p->pop_back();
  return x;
}
template <class T>
inline std::optional<T> shift(const Array<T>& a) {
  if (a.p->empty()) return std::nullopt;
  T x = std::move(a.p->front());
  a.p->erase(a.p->begin());
  return x;
}
template <class T>
inline double unshift(const Array<T>& a, Elem<T> x) {
  a.p->insert(a.p->begin(), std::move(x));
  return a.length();
}
template <class T>
inline Array<T> slice(const Array<T>& a, double start = 0) {
  size_t s = relIndex(start, a.size());
  return Array<T>(std::vector<T>(a.p->begin() + s, a.p->end()));
}
template <class T>
inline Array<T> slice(const Array<T>& a, double start, double end) {
  size_t s = relIndex(start, a.size()), e = relIndex(end, a.size());
  if (e < s) e = s;
  return Array<T>(std::vector<T>(a.p->begin() + s, a.p->begin() + e));
}
template <class T>
inline double indexOf(const Array<T>& a, const Elem<T>& x) {
  for (size_t i = 0; i < a.size(); ++i)
    if (strictEquals((*a.p)[i], x)) return static_cast<double>(i);
  return -1;
}
template <class T>
inline bool includes(const Array<T>& a, const Elem<T>& x) {
  for (const T& y : *a.p)
    if (sameValueZero(y, x)) return true;
  return false;
}
template <class T>
inline Array<T> concat(const Array<T>& a, const Array<T>& b) {
  std::vector<T> v(*a.p);
  v.insert(v.end(), b.p->begin(), b.p->end());
  return Array<T>(std::move(v));
}
template <class T>
inline Array<T> reverse(const Array<T>& a) {
  std::reverse(a.p->begin(), a.p->end());
  return a;
}
template <class T>
inline Array<T> fill(const Array<T>& a, Elem<T> x) {
  std::fill(a.p->begin(), a.p->end(), x);
  return a;
}
template <class T, class F>
inline auto map(const Array<T>& a, F f) {
  using R = decltype(f(std::declval<T&>(), 0.0));
  std::vector<R> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) out.push_back(f((*a.p)[i], static_cast<double>(i)));
  return Array<R>(std::move(out));
}
template <class T, class F>
inline Array<T> filter(const Array<T>& a, F f) {
  std::vector<T> out;
  for (size_t i = 0; i < a.size(); ++i) {
    T x = (*a.p)[i];
    if (f(x, static_cast<double>(i))) out.push_back(std::move(x));
  }
  return Array<T>(std::move(out));
}
template <class T, class F>
inline void forEach(const Array<T>& a, F f) {
  size_t n = a.size();  // forEach visits the original length
  for (size_t i = 0; i < n && i < a.size(); ++i) f((*a.p)[i], static_cast<double>(i));
}
template <class T, class F>
inline bool some(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (f((*a.p)[i], static_cast<double>(i))) return true;
  return false;
}
template <class T, class F>
inline bool every(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!f((*a.p)[i], static_cast<double>(i))) return false;
  return true;
}
template <class T, class F>
inline std::optional<T> find(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (f((*a.p)[i], static_cast<double>(i))) return (*a.p)[i];
  return std::nullopt;
}
template <class T, class F>
inline double findIndex(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (f((*a.p)[i], static_cast<double>(i))) return static_cast<double>(i);
  return -1;
}
template <class T, class U, class F>
inline U reduce(const Array<T>& a, F f, U init) {
  U acc = std::move(init);
  for (size_t i = 0; i < a.size(); ++i) acc = f(acc, (*a.p)[i], static_cast<double>(i));
  return acc;
}
template <class T, class F>
inline T reduce1(const Array<T>& a, F f) {
  if (a.p->empty()) throwTypeError(u"Reduce of empty array with no initial value");
  T acc = (*a.p)[0];
  for (size_t i = 1; i < a.size(); ++i) acc = f(acc, (*a.p)[i], static_cast<double>(i));
  return acc;
}
// sort(cmp): stable, like V8's TimSort; NaN from the comparator counts as 0 (equal).
template <class T, class F>
inline Array<T> sort(const Array<T>& a, F cmp) {
  std::stable_sort(a.p->begin(), a.p->end(), [&](const T& x, const T& y) { return cmp(x, y) < 0; });
  return a;
}
template <class T>
Str toStr(const Array<T>& a);
template <class T>
inline Str join(const Array<T>& a, const Str& sep = u",") {
  Str out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out += sep;
    out += toStr((*a.p)[i]);
  }
  return out;
}
// sort() without a comparator orders by the elements' strings (numbers too, as JS does).
template <class T>
inline Array<T> sortDefault(const Array<T>& a) {
  std::stable_sort(a.p->begin(), a.p->end(), [](const T& x, const T& y) { return toStr(x) < toStr(y); });
  return a;
}
template <class T>
Str toStr(const Array<T>& a) { return join(a, u","); }

inline Array<Str> split(const Str& s, const Str& sep) {
  std::vector<Str> out;
  if (sep.empty()) {
    for (char16_t c : s) out.emplace_back(1, c);
    return Array<Str>(std::move(out));
  }
  size_t start = 0, p;
  while ((p = s.find(sep, start)) != Str::npos) {
    out.push_back(s.substr(start, p - start));
    start = p + sep.size();
  }
  out.push_back(s.substr(start));
  return Array<Str>(std::move(out));
}
inline Array<Str> split(const Str& s, const Str& sep, double limit) {
  uint32_t lim = toUint32(limit);
  Array<Str> all = split(s, sep);
  if (all.size() > lim) all.p->resize(lim);
  return all;
}

// for (const ch of s): code points, lone surrogates alone.
inline Array<Str> codePoints(const Str& s) {
  std::vector<Str> out;
  for (size_t i = 0; i < s.size();) {
    size_t units;
    codePointAt(s, i, &units);
    out.push_back(s.substr(i, units));
    i += units;
  }
  return Array<Str>(std::move(out));
}

// ---------------------------------------------------------------------------------------------
// Typed arrays: element stores convert as JS does (fround, ToInt32 and friends); reads give
// doubles; writes outside the array are ignored, as in JS.

template <class E>
inline E toElement(double v) {
  if constexpr (std::is_floating_point_v<E>) {
    return static_cast<E>(v);
  } else {
    return static_cast<E>(toUint32(v));  // modular, then truncated to the element width
  }
}

template <class E>
struct TypedArray {
  std::shared_ptr<std::vector<E>> p;
  TypedArray() : p(std::make_shared<std::vector<E>>()) {}
  explicit TypedArray(double n) {
    double len = toIntegerOrInfinity(n);
    if (len < 0 || len > 4294967295.0) throwRangeError(u"Invalid typed array length: " + numberToString(n));
    p = std::make_shared<std::vector<E>>(static_cast<size_t>(len));
  }
  explicit TypedArray(const Array<double>& a) : p(std::make_shared<std::vector<E>>()) {
    p->reserve(a.size());
    for (double v : *a.p) p->push_back(toElement<E>(v));
  }
  explicit TypedArray(std::vector<E> v) : p(std::make_shared<std::vector<E>>(std::move(v))) {}
  size_t size() const { return p->size(); }
  double length() const { return static_cast<double>(p->size()); }
  double get(double i) const {
    if (!(i >= 0 && i < static_cast<double>(p->size()) && i == std::trunc(i)))
      throwUndefined(u"typed array index " + numberToString(i) + u" is outside the array");
    return static_cast<double>((*p)[static_cast<size_t>(i)]);
  }
  double set(double i, double v) const {
    if (i >= 0 && i < static_cast<double>(p->size()) && i == std::trunc(i)) (*p)[static_cast<size_t>(i)] = toElement<E>(v);
    return v;
  }
  bool operator==(const TypedArray& o) const { return p == o.p; }
  bool operator!=(const TypedArray& o) const { return p != o.p; }
};

template <class E>
inline Array<double> toArray(const TypedArray<E>& a) {
  std::vector<double> v(a.p->begin(), a.p->end());
  return Array<double>(std::move(v));
}
template <class E>
inline TypedArray<E> slice(const TypedArray<E>& a, double start = 0) {
  size_t s = relIndex(start, a.size());
  return TypedArray<E>(std::vector<E>(a.p->begin() + s, a.p->end()));
}
template <class E>
inline TypedArray<E> slice(const TypedArray<E>& a, double start, double end) {
  size_t s = relIndex(start, a.size()), e = relIndex(end, a.size());
  if (e < s) e = s;
  return TypedArray<E>(std::vector<E>(a.p->begin() + s, a.p->begin() + e));
}
template <class E>
inline TypedArray<E> fill(const TypedArray<E>& a, double v) {
  std::fill(a.p->begin(), a.p->end(), toElement<E>(v));
  return a;
}
template <class E>
inline double indexOf(const TypedArray<E>& a, double x) {
  for (size_t i = 0; i < a.size(); ++i)
    if (static_cast<double>((*a.p)[i]) == x) return static_cast<double>(i);
  return -1;
}
template <class E>
inline bool includes(const TypedArray<E>& a, double x) {
  for (E y : *a.p)
    if (sameValueZero(static_cast<double>(y), x)) return true;
  return false;
}
template <class E>
inline Str join(const TypedArray<E>& a, const Str& sep = u",") {
  Str out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out += sep;
    out += numberToString(static_cast<double>((*a.p)[i]));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Map and Set: insertion order, SameValueZero keys (NaN equals NaN, -0 is +0), entries deleted
// while iterating are skipped and entries added are visited, as in JS.

template <class K>
struct KeyHash {
  size_t operator()(const K& k) const {
    if constexpr (std::is_same_v<K, double>) {
      if (std::isnan(k)) return 0x7ff8;
      double z = k == 0 ? 0.0 : k;
      uint64_t b;
      std::memcpy(&b, &z, 8);
      return std::hash<uint64_t>()(b);
    } else {
      return std::hash<K>()(k);
    }
  }
};
template <class K>
struct KeyEq {
  bool operator()(const K& a, const K& b) const { return sameValueZero(a, b); }
};
template <class K>
inline K normalizeKey(K k) {
  if constexpr (std::is_same_v<K, double>) {
    if (k == 0) return 0.0;
  }
  return k;
}

// Entries in insertion order (a removed one leaves an empty slot, so iterators stay valid) and
// an index from key to slot.
template <class K, class V>
struct MapData {
  std::vector<std::optional<std::pair<K, V>>> entries;
  std::unordered_map<K, size_t, KeyHash<K>, KeyEq<K>> index;
  bool remove(const K& k) {
    auto it = index.find(k);
    if (it == index.end()) return false;
    entries[it->second].reset();
    index.erase(it);
    return true;
  }
  void clear() {
    for (auto& e : entries) e.reset();
    index.clear();
  }
};

template <class K, class V>
struct Map {
  std::shared_ptr<MapData<K, V>> p = std::make_shared<MapData<K, V>>();
  double size() const { return static_cast<double>(p->index.size()); }
  bool has(const K& k) const { return p->index.count(k) > 0; }
  std::optional<V> get(const K& k) const {
    auto it = p->index.find(k);
    if (it == p->index.end()) return std::nullopt;
    return p->entries[it->second]->second;
  }
  Map set(const K& key, V v) const {
    K k = normalizeKey(key);
    auto it = p->index.find(k);
    if (it != p->index.end()) {
      p->entries[it->second]->second = std::move(v);
    } else {
      p->index.emplace(k, p->entries.size());
      p->entries.emplace_back(std::make_pair(k, std::move(v)));
    }
    return *this;
  }
  bool remove(const K& k) const { return p->remove(k); }
  void clear() const { p->clear(); }
  bool operator==(const Map& o) const { return p == o.p; }
  bool operator!=(const Map& o) const { return p != o.p; }
};

template <class K>
struct Set {
  std::shared_ptr<MapData<K, bool>> p = std::make_shared<MapData<K, bool>>();
  Set() = default;
  explicit Set(const Array<K>& items) {
    for (const K& k : *items.p) add(k);
  }
  double size() const { return static_cast<double>(p->index.size()); }
  bool has(const K& k) const { return p->index.count(k) > 0; }
  Set add(const K& key) const {
    K k = normalizeKey(key);
    if (!p->index.count(k)) {
      p->index.emplace(k, p->entries.size());
      p->entries.emplace_back(std::make_pair(k, true));
    }
    return *this;
  }
  bool remove(const K& k) const { return p->remove(k); }
  void clear() const { p->clear(); }
  bool operator==(const Set& o) const { return p == o.p; }
  bool operator!=(const Set& o) const { return p != o.p; }
};

template <class K, class V>
inline Array<K> mapKeys(const Map<K, V>& m) {
  std::vector<K> out;
  for (auto& e : m.p->entries)
    if (e) out.push_back(e->first);
  return Array<K>(std::move(out));
}
template <class K, class V>
inline Array<V> mapValues(const Map<K, V>& m) {
  std::vector<V> out;
  for (auto& e : m.p->entries)
    if (e) out.push_back(e->second);
  return Array<V>(std::move(out));
}
template <class K>
inline Array<K> setValues(const Set<K>& s) {
  std::vector<K> out;
  for (auto& e : s.p->entries)
    if (e) out.push_back(e->first);
  return Array<K>(std::move(out));
}

// `a ?? b` and `a!` on the values JS methods return `undefined` from (pop, find, Map.get…).
template <class T, class F>
inline T coalesce(const std::optional<T>& o, F fallback) {
  return o ? *o : fallback();
}
template <class T>
inline T unwrap(const std::optional<T>& o, const char16_t* what) {
  if (!o) throwUndefined(Str(what) + u" is undefined");
  return *o;
}

// ---------------------------------------------------------------------------------------------
// JSON.stringify for the known shapes (objects print through generated functions).

inline void jsonQuote(Str& out, const Str& s) {
  static const char16_t* hex = u"0123456789abcdef";
  out.push_back(u'"');
  for (size_t i = 0; i < s.size(); ++i) {
    char16_t c = s[i];
    switch (c) {
      case u'"': out += u"\\\""; break;
      case u'\\': out += u"\\\\"; break;
      case u'\b': out += u"\\b"; break;
      case u'\f': out += u"\\f"; break;
      case u'\n': out += u"\\n"; break;
      case u'\r': out += u"\\r"; break;
      case u'\t': out += u"\\t"; break;
      default: {
        bool lone = (isHigh(c) && !(i + 1 < s.size() && isLow(s[i + 1]))) || (isLow(c) && !(i > 0 && isHigh(s[i - 1])));
        if (c < 0x20 || lone) {
          out += u"\\u";
          out.push_back(hex[(c >> 12) & 15]);
          out.push_back(hex[(c >> 8) & 15]);
          out.push_back(hex[(c >> 4) & 15]);
          out.push_back(hex[c & 15]);
        } else {
          out.push_back(c);
        }
      }
    }
  }
  out.push_back(u'"');
}
inline void jsonWrite(Str& out, const Str& s) { jsonQuote(out, s); }
inline void jsonWrite(Str& out, double v) { out += std::isfinite(v) ? numberToString(v) : Str(u"null"); }
inline void jsonWrite(Str& out, bool b) { out += b ? u"true" : u"false"; }
// A Map or Set has no enumerable properties: JSON.stringify prints {} (the compiler rejects it
// where it is stringified directly; objects holding one still need to print).
template <class K, class V>
inline void jsonWrite(Str& out, const Map<K, V>&) { out += u"{}"; }
template <class K>
inline void jsonWrite(Str& out, const Set<K>&) { out += u"{}"; }
template <class T>
inline void jsonWrite(Str& out, const std::shared_ptr<T>& o) {
  jsonWriteObject(out, *o);
}
template <class T>
inline void jsonWrite(Str& out, const Array<T>& a) {
  out.push_back(u'[');
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out.push_back(u',');
    jsonWrite(out, (*a.p)[i]);
  }
  out.push_back(u']');
}
// JSON.stringify(new Float32Array([1, 2])) is {"0":1,"1":2}.
template <class E>
inline void jsonWrite(Str& out, const TypedArray<E>& a) {
  out.push_back(u'{');
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out.push_back(u',');
    out += u"\"" + numberToString(static_cast<double>(i)) + u"\":";
    jsonWrite(out, static_cast<double>((*a.p)[i]));
  }
  out.push_back(u'}');
}
template <class T>
inline Str jsonStringify(const T& v) {
  Str out;
  jsonWrite(out, v);
  return out;
}

}  // namespace tsrt
