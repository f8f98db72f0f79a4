// Differential harness support: reads the typed arguments test/tscompile/harness.ts writes
// (hex tokens, so NaN, -0 and lone surrogates cross exactly) and prints results in the same
// canonical text the Node side prints.
#pragma once
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>

#include "triton_studio/ts_runtime.h"

namespace harness {

struct Reader {
  std::istream& in;
  std::string token() {
    std::string t;
    in >> t;
    return t;
  }
  double count() { return std::stod(token()); }
  double number() {
    uint64_t bits = std::stoull(token(), nullptr, 16);
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  bool boolean() { return token() == "1"; }
  tsrt::Str string() {
    std::string t = token();  // "<units>:<4 hex digits per unit>"
    size_t colon = t.find(':');
    size_t n = std::stoul(t.substr(0, colon));
    tsrt::Str s;
    s.reserve(n);
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char16_t>(std::stoul(t.substr(colon + 1 + 4 * i, 4), nullptr, 16)));
    return s;
  }
};

inline void write(std::string& out, double v) {
  if (v == 0 && std::signbit(v))
    out += "-0";
  else
    out += tsrt::toUtf8(tsrt::numberToString(v));
}
inline void write(std::string& out, bool b) { out += b ? "true" : "false"; }
inline void write(std::string& out, const tsrt::Str& s) {
  tsrt::Str q;
  tsrt::jsonQuote(q, s);
  out += tsrt::toUtf8(q);
}

}  // namespace harness
