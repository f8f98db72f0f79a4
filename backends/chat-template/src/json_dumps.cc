// json.dumps of values as Python writes it (ensure_ascii, indent, separators, sort_keys): what
// the `tojson` filter renders.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "utf8.h"
#include "value.h"

namespace triton_studio::chat::detail {

namespace {

void AppendJsonString(std::string& out, std::string_view s, bool ensure_ascii) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char buf[16];
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20 || (ensure_ascii && c == 0x7F)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
    } else if (c < 0x80 || !ensure_ascii) {
      out += static_cast<char>(c);
      ++i;
    } else {
      uint32_t cp = DecodeUtf8(s, i);
      if (cp >= 0x10000) {
        uint32_t v = cp - 0x10000;
        std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
      } else {
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      }
      out += buf;
    }
  }
  out += '"';
}

void AppendJson(std::string& out, const Value& v, const JsonDumpOptions& o, int level) {
  CheckNesting(level);
  auto newline = [&](int lvl) {
    if (!o.indent) return;
    out += '\n';
    for (int k = 0; k < lvl; ++k) out += *o.indent;
  };
  switch (v.type()) {
    case Type::None:
      out += "null";
      return;
    case Type::Bool:
      out += v.as_bool() ? "true" : "false";
      return;
    case Type::Int:
      out += std::to_string(v.as_int());
      return;
    case Type::Float: {
      double d = v.as_double();
      if (std::isnan(d)) {
        out += "NaN";
      } else if (std::isinf(d)) {
        out += d < 0 ? "-Infinity" : "Infinity";
      } else {
        out += FloatRepr(d);
      }
      return;
    }
    case Type::String:
      AppendJsonString(out, v.str(), o.ensure_ascii);
      return;
    case Type::List: {
      if (v.is_generator() || v.view()) {
        throw ValueError(std::string("Object of type ") + TypeName(v) + " is not JSON serializable");
      }
      if (v.size() == 0) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += o.item_separator;
        newline(level + 1);
        AppendJson(out, v.at(i), o, level + 1);
      }
      newline(level);
      out += ']';
      return;
    }
    case Type::Dict: {
      if (v.size() == 0) {
        out += "{}";
        return;
      }
      std::vector<std::pair<Value, Value>> entries;
      v.ForEachEntry([&](const Value& k, const Value& item) { entries.emplace_back(k, item); });
      if (o.sort_keys) {
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first.str() < b.first.str(); });
      }
      out += '{';
      bool first = true;
      for (const auto& [k, item] : entries) {
        if (!first) out += o.item_separator;
        first = false;
        newline(level + 1);
        AppendJsonString(out, k.str(), o.ensure_ascii);
        out += o.key_separator;
        AppendJson(out, item, o, level + 1);
      }
      newline(level);
      out += '}';
      return;
    }
    default:
      throw ValueError(std::string("Object of type ") + TypeName(v) + " is not JSON serializable");
  }
}

}  // namespace
std::string JsonDumps(const Value& v, const JsonDumpOptions& options) {
  std::string out;
  AppendJson(out, v, options, 0);
  return out;
}

}  // namespace triton_studio::chat::detail
