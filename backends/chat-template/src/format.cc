// Python's printf-style `%` formatting and str.format, for the conversions templates use.
// Anything else is named as unsupported rather than formatted differently.
#include <cmath>
#include <cstdio>

#include "builtins.h"
#include "utf8.h"

namespace triton_studio::chat::detail {

namespace {

[[noreturn]] void Unsupported(const std::string& what) { throw UnsupportedConstructError(what, 0, 0); }

std::string PadTo(std::string s, int64_t width, bool left_align, char fill) {
  int64_t len = static_cast<int64_t>(CodePointCount(s));
  if (width <= len) return s;
  std::string pad(static_cast<size_t>(width - len), fill);
  if (left_align) return s + std::string(static_cast<size_t>(width - len), ' ');
  if (fill == '0' && !s.empty() && (s[0] == '-' || s[0] == '+' || s[0] == ' ')) return s.substr(0, 1) + pad + s.substr(1);
  return pad + s;
}

// One `%` conversion of Python's %-formatting (s r d i x X f F), before padding to its width.
std::string PercentPiece(char conv, const Value& arg, int precision, bool plus, bool space) {
  std::string piece;
  switch (conv) {
    case 's':
    case 'r':
      piece = conv == 's' ? ToStr(arg) : Repr(arg);
      if (precision >= 0) {
        size_t k = 0;
        for (int c = 0; c < precision && k < piece.size(); ++c) DecodeUtf8(piece, k);
        piece = piece.substr(0, k);
      }
      break;
    case 'd':
    case 'i':
    case 'x':
    case 'X': {
      if (!arg.is_number()) {
        throw ValueError(std::string("%") + conv + " format: a real number is required, not " + TypeName(arg));
      }
      int64_t v = arg.type() == Type::Float ? FloatToInt(arg.as_double()) : arg.as_int();
      char buf[64];
      if (conv == 'x' || conv == 'X') {
        unsigned long long mag = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
        std::snprintf(buf, sizeof buf, conv == 'x' ? "%llx" : "%llX", mag);
        piece = std::string(v < 0 ? "-" : "") + buf;
      } else {
        piece = std::to_string(v);
      }
      if (v >= 0 && plus) piece = "+" + piece;
      else if (v >= 0 && space) piece = " " + piece;
      break;
    }
    case 'f':
    case 'F': {
      if (!arg.is_number()) throw ValueError(std::string("must be real number, not ") + TypeName(arg));
      char buf[512];
      std::snprintf(buf, sizeof buf, "%.*f", precision < 0 ? 6 : precision, arg.as_double());
      piece = buf;
      if (arg.as_double() >= 0 && plus) piece = "+" + piece;
      else if (arg.as_double() >= 0 && space) piece = " " + piece;
      break;
    }
    default:
      Unsupported(std::string("'%") + conv + "' formatting");
  }
  return piece;
}

}  // namespace

std::string PercentFormat(std::string_view fmt, const Value& args) {
  std::vector<Value> positional;
  const Value* mapping = nullptr;
  if (args.is_tuple()) {
    positional = Iterate(args);
  } else if (args.is_dict()) {
    mapping = &args;
    positional.push_back(args);
  } else {
    positional.push_back(args);
  }
  size_t next = 0;
  bool used_mapping = false;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    if (++i >= fmt.size()) throw ValueError("incomplete format");
    Value arg;
    bool have_arg = false;
    if (fmt[i] == '(') {
      size_t close = fmt.find(')', i);
      if (close == std::string_view::npos) throw ValueError("incomplete format key");
      if (args.is_undefined()) throw ValueError("undefined value used as a mapping in '%' formatting");
      if (!mapping) throw ValueError("format requires a mapping");
      auto v = mapping->get(fmt.substr(i + 1, close - i - 1));
      if (!v) throw ValueError("KeyError: '" + std::string(fmt.substr(i + 1, close - i - 1)) + "'");
      arg = *v;
      have_arg = true;
      used_mapping = true;
      i = close + 1;
    }
    bool left = false, zero = false, plus = false, space = false;
    for (; i < fmt.size(); ++i) {
      char f = fmt[i];
      if (f == '-') left = true;
      else if (f == '0') zero = true;
      else if (f == '+') plus = true;
      else if (f == ' ') space = true;
      else if (f == '#') Unsupported("'%#' formatting");
      else break;
    }
    int64_t width = 0;
    while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) width = width * 10 + (fmt[i++] - '0');
    int precision = -1;
    if (i < fmt.size() && fmt[i] == '.') {
      precision = 0;
      ++i;
      while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) precision = precision * 10 + (fmt[i++] - '0');
    }
    if (i >= fmt.size()) throw ValueError("incomplete format");
    char conv = fmt[i];
    if (conv == '%') {
      out += '%';
      continue;
    }
    if (!have_arg) {
      if (next >= positional.size()) throw ValueError("not enough arguments for format string");
      arg = positional[next++];
    }
    std::string piece = PercentPiece(conv, arg, precision, plus, space);
    out += PadTo(piece, width, left, zero && conv != 's' && conv != 'r' ? '0' : ' ');
  }
  // CPython skips this check when the argument is a mapping-like non-tuple (a dict or a list).
  bool mapping_like = args.is_dict() || args.is_undefined() || (args.is_list() && !args.is_tuple());
  if (!mapping_like && next < positional.size()) throw ValueError("not all arguments converted during string formatting");
  (void)used_mapping;
  return out;
}

std::string BraceFormat(std::string_view fmt, const CallArgs& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      throw ValueError("Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    size_t close = fmt.find('}', i);
    if (close == std::string_view::npos) throw ValueError("Single '{' encountered in format string");
    std::string_view field = fmt.substr(i + 1, close - i - 1);
    i = close;
    char conversion = 0;
    size_t bang = field.find('!');
    size_t colon = field.find(':');
    if (colon != std::string_view::npos) {
      if (colon + 1 < field.size()) Unsupported("str.format() with a format spec");
      field = field.substr(0, colon);
    }
    if (bang != std::string_view::npos && bang < field.size()) {
      conversion = field.size() > bang + 1 ? field[bang + 1] : 0;
      field = field.substr(0, bang);
    }
    if (field.find('.') != std::string_view::npos || field.find('[') != std::string_view::npos) {
      Unsupported("str.format() with attribute or index fields");
    }
    Value v;
    if (field.empty()) {
      if (auto_index >= args.positional.size()) throw ValueError("Replacement index out of range for positional args tuple");
      v = args.positional[auto_index++];
    } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
      size_t idx = std::stoul(std::string(field));
      if (idx >= args.positional.size()) throw ValueError("Replacement index out of range for positional args tuple");
      v = args.positional[idx];
    } else {
      bool found = false;
      for (const auto& [k, val] : args.keyword) {
        if (k == field) {
          v = val;
          found = true;
        }
      }
      if (!found) throw ValueError("KeyError: '" + std::string(field) + "'");
    }
    if (conversion == 'r') out += Repr(v);
    else if (conversion == 0 || conversion == 's') out += ToStr(v);
    else Unsupported(std::string("str.format() conversion !") + conversion);
  }
  return out;
}

}  // namespace triton_studio::chat::detail
