// Numbers as JavaScript computes and prints them: Number::toString, Math.round/exp/sign, toFixed,
// Number(string), ToInt32/ToUint32 for the bitwise operators (builtins/math.ts).

#pragma once

#include "triton_studio/ts_core.h"

namespace tsrt {


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

}  // namespace tsrt
