// Python's str() and repr() of values: float repr as the shortest round trip, string repr with
// Python's quote choice and escapes.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "utf8.h"
#include "value.h"

namespace triton_studio::chat::detail {

std::string FloatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]D[.DDD]e[+-]XX
  bool neg = sci[0] == '-';
  if (neg) sci.erase(0, 1);
  size_t e = sci.find('e');
  int exp = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      if (static_cast<int>(digits.size()) <= exp + 1) {
        out += digits + std::string(exp + 1 - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
      }
    } else {
      out += "0." + std::string(-exp - 1, '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char eb[16];
  std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out + eb;
}

namespace {

// Python's str.isprintable() for a non-ASCII code point, for the ranges chat data meets:
// separators (Z*), format characters (Cf), C1 controls and private use print as escapes.
bool PrintableNonAscii(uint32_t cp) {
  if (cp < 0xA1) return false;  // C1 controls and U+00A0
  if (cp == 0xAD || cp == 0x1680 || cp == 0x180E) return false;
  if (cp >= 0x2000 && cp <= 0x200F) return false;
  if (cp >= 0x2028 && cp <= 0x202F) return false;
  if (cp >= 0x205F && cp <= 0x206F) return false;
  if (cp == 0x3000 || cp == 0xFEFF) return false;
  if (cp >= 0xFFF9 && cp <= 0xFFFB) return false;
  if (cp >= 0xE000 && cp <= 0xF8FF) return false;
  if (cp >= 0xF0000) return false;
  return true;
}

void AppendStringRepr(std::string& out, std::string_view s) {
  char quote = '\'';
  if (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) quote = '"';
  out += quote;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    uint32_t cp = DecodeUtf8(s, i);
    char buf[16];
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      out += buf;
    } else if (cp < 0x80 || PrintableNonAscii(cp)) {
      out.append(s.substr(start, i - start));
    } else {
      if (cp < 0x100) {
        std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      } else if (cp < 0x10000) {
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      } else {
        std::snprintf(buf, sizeof buf, "\\U%08x", cp);
      }
      out += buf;
    }
  }
  out += quote;
}

void AppendRepr(std::string& out, const Value& v, int depth = 0) {
  CheckNesting(depth);
  switch (v.type()) {
    case Type::String:
      AppendStringRepr(out, v.str());
      return;
    case Type::List: {
      if (v.is_generator()) {
        throw UnsupportedConstructError("printing a generator (jinja2 prints its memory address; add |list)", 0, 0);
      }
      bool tuple = v.is_tuple();
      if (v.view()) out += std::string(v.view()) + "(";
      out += tuple ? '(' : '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ", ";
        AppendRepr(out, v.at(i), depth + 1);
      }
      if (tuple && v.size() == 1) out += ',';
      out += tuple ? ')' : ']';
      if (v.view()) out += ')';
      return;
    }
    case Type::Dict: {
      out += '{';
      bool first = true;
      v.ForEachEntry([&](const Value& k, const Value& item) {
        if (!first) out += ", ";
        first = false;
        AppendStringRepr(out, k.str());
        out += ": ";
        AppendRepr(out, item, depth + 1);
      });
      out += '}';
      return;
    }
    case Type::Object:
      out += v.object()->Repr();
      return;
    case Type::Undefined:
      out += "Undefined";
      return;
    default:
      AppendStr(out, v);
  }
}

}  // namespace

void AppendStr(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::Undefined:
      return;
    case Type::None:
      out += "None";
      return;
    case Type::Bool:
      out += v.as_bool() ? "True" : "False";
      return;
    case Type::Int:
      out += std::to_string(v.as_int());
      return;
    case Type::Float:
      out += FloatRepr(v.as_double());
      return;
    case Type::String:
      out.append(v.str());
      return;
    default:
      AppendRepr(out, v);
  }
}

std::string ToStr(const Value& v) {
  if (v.is_string()) return std::string(v.str());
  std::string out;
  AppendStr(out, v);
  return out;
}

std::string Repr(const Value& v) {
  std::string out;
  AppendRepr(out, v);
  return out;
}

}  // namespace triton_studio::chat::detail
