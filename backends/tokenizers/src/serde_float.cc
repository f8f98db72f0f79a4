// JSON floats parsed as serde_json parses them for HF (see serde_float.h).
#include "serde_float.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace triton_studio::tok {
namespace {

// 1e0 .. 1e308, each the correctly rounded double (as Rust's literals in serde_json's POW10).
const std::array<double, 309>& Pow10() {
  static const std::array<double, 309> table = [] {
    std::array<double, 309> t{};
    char buf[8];
    for (int i = 0; i <= 308; ++i) {
      std::snprintf(buf, sizeof buf, "1e%d", i);
      t[static_cast<size_t>(i)] = std::strtod(buf, nullptr);
    }
    return t;
  }();
  return table;
}

bool Digit(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// serde_json's overflow!(a * 10 + b, max): the next digit would not fit.
template <typename T>
bool Overflows(T a, T b, T max) {
  return a >= max / 10 && (a > max / 10 || b > max % 10);
}

std::optional<double> FromParts(bool positive, uint64_t significand, int64_t exponent) {
  double f = static_cast<double>(significand);
  const auto& pow10 = Pow10();
  for (;;) {
    const int64_t magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude <= 308) {
      if (exponent >= 0) {
        f *= pow10[static_cast<size_t>(magnitude)];
        if (std::isinf(f)) return std::nullopt;
      } else {
        f /= pow10[static_cast<size_t>(magnitude)];
      }
      break;
    }
    if (f == 0.0) break;
    if (exponent >= 0) return std::nullopt;
    f /= 1e308;
    exponent += 308;
  }
  return positive ? f : -f;
}

std::optional<double> Exponent(std::string_view s, size_t i, bool positive, uint64_t significand,
                               int64_t starting) {
  ++i;  // 'e' or 'E'
  bool positive_exp = true;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) positive_exp = s[i++] == '+';
  if (!Digit(s, i)) return std::nullopt;
  int32_t exp = s[i++] - '0';
  for (; Digit(s, i); ++i) {
    const int32_t digit = s[i] - '0';
    if (Overflows<int32_t>(exp, digit, std::numeric_limits<int32_t>::max())) {
      if (significand != 0 && positive_exp) return std::nullopt;
      return positive ? 0.0 : -0.0;
    }
    exp = exp * 10 + digit;
  }
  // i32 saturating arithmetic, as serde_json's.
  int64_t final_exp = positive_exp ? starting + exp : starting - exp;
  final_exp = std::max<int64_t>(std::min<int64_t>(final_exp, std::numeric_limits<int32_t>::max()),
                                std::numeric_limits<int32_t>::min());
  return FromParts(positive, significand, final_exp);
}

std::optional<double> Decimal(std::string_view s, size_t i, bool positive, uint64_t significand, int64_t before) {
  ++i;  // '.'
  int64_t after = 0;
  for (; Digit(s, i); ++i) {
    const auto digit = static_cast<uint64_t>(s[i] - '0');
    if (Overflows<uint64_t>(significand, digit, std::numeric_limits<uint64_t>::max())) {
      while (Digit(s, i)) ++i;  // further digits are ignored
      break;
    }
    significand = significand * 10 + digit;
    --after;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) return Exponent(s, i, positive, significand, before + after);
  return FromParts(positive, significand, before + after);
}

}  // namespace

std::optional<double> SerdeJsonF64(std::string_view s) {
  size_t i = 0;
  const bool positive = !(i < s.size() && s[i] == '-');
  if (!positive) ++i;
  if (!Digit(s, i)) return std::nullopt;
  uint64_t significand = 0;
  int64_t exponent = 0;
  if (s[i] == '0') {
    ++i;
  } else {
    for (; Digit(s, i); ++i) {
      const auto digit = static_cast<uint64_t>(s[i] - '0');
      if (Overflows<uint64_t>(significand, digit, std::numeric_limits<uint64_t>::max())) {
        for (; Digit(s, i); ++i) ++exponent;  // a long integer: the rest only scales it
        break;
      }
      significand = significand * 10 + digit;
    }
  }
  if (i < s.size() && s[i] == '.') return Decimal(s, i, positive, significand, exponent);
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) return Exponent(s, i, positive, significand, exponent);
  if (exponent != 0) return FromParts(positive, significand, exponent);
  // An integer: u64 as is; a negative one as i64, or as a double below i64's range and for -0.
  if (positive) return static_cast<double>(significand);
  const auto negated = static_cast<int64_t>(0 - significand);
  if (negated >= 0) return -static_cast<double>(significand);
  return static_cast<double>(negated);
}

}  // namespace triton_studio::tok
