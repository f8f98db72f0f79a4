// jinja2's text filters: trim, upper/lower/capitalize/title, replace, indent, center, escape,
// safe, format and wordcount (Python's str semantics, Unicode-aware).
#include <algorithm>
#include <cstring>

#include "filters.h"
#include "pystr.h"
#include "unicode.h"  // the tokenizer library's tables
#include "utf8.h"

namespace triton_studio::chat::detail::filters {

Value Trim(Runtime&, const Value& v, CallArgs& a) {
  std::string s = ToStr(v);
  auto chars = Arg(a, 0, "chars");
  std::optional<std::string> c;
  if (chars && !chars->is_none()) c = ToStr(*chars);
  return Value::String(std::string(PyStrip(s, c ? std::optional<std::string_view>(*c) : std::nullopt, true, true)));
}

Value Upper(Runtime&, const Value& v, CallArgs&) { return Value::String(PyUpper(ToStr(v))); }
Value Lower(Runtime&, const Value& v, CallArgs&) { return Value::String(PyLower(ToStr(v))); }
Value Capitalize(Runtime&, const Value& v, CallArgs&) { return Value::String(PyCapitalize(ToStr(v))); }

// jinja2's title: each word (split at whitespace and -({[<) gets its first character upper-cased.
Value Title(Runtime&, const Value& v, CallArgs&) {
  std::string s = ToStr(v), out;
  size_t i = 0;
  bool word_start = true;
  while (i < s.size()) {
    size_t start = i;
    uint32_t cp = DecodeUtf8(s, i);
    bool sep = IsPyWhitespace(cp) || cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<';
    if (sep) {
      out.append(s, start, i - start);
      word_start = true;
    } else if (word_start) {
      out += PyUpper(std::string_view(s).substr(start, i - start));
      word_start = false;
    } else {
      out += PyLower(std::string_view(s).substr(start, i - start));
    }
  }
  return Value::String(out);
}

Value Replace(Runtime&, const Value& v, CallArgs& a) {
  std::string s = ToStr(v);
  std::string from = ArgStr(a, 0, "old", ""), to = ArgStr(a, 1, "new", "");
  auto count_v = Arg(a, 2, "count");
  int64_t count = count_v && !count_v->is_none() ? count_v->as_int() : -1;
  std::string out;
  if (from.empty()) {
    // Python inserts `new` between every character (and at both ends).
    size_t i = 0;
    int64_t n = 0;
    while (i <= s.size() && (count < 0 || n < count)) {
      out += to;
      ++n;
      if (i == s.size()) {
        i = s.size() + 1;
        break;
      }
      size_t start = i;
      DecodeUtf8(s, i);
      out.append(s, start, i - start);
    }
    if (i <= s.size()) out.append(s, i, std::string::npos);
    return Value::String(out);
  }
  size_t pos = 0;
  int64_t n = 0;
  while (count < 0 || n < count) {
    size_t f = s.find(from, pos);
    if (f == std::string::npos) break;
    out.append(s, pos, f - pos);
    out += to;
    pos = f + from.size();
    ++n;
  }
  out.append(s, pos, std::string::npos);
  return Value::String(out);
}
// jinja2's indent: empty lines stay empty unless `blank`; the first line only with `first`.
Value Indent(Runtime&, const Value& v, CallArgs& a) {
  auto w = Arg(a, 0, "width").value_or(Value::Int(4));
  std::string pad = w.is_string() ? std::string(w.str()) : std::string(static_cast<size_t>(std::max<int64_t>(0, w.as_int())), ' ');
  bool first = ArgBool(a, 1, "first", false);
  bool blank = ArgBool(a, 2, "blank", false);
  if (!v.is_string()) {  // jinja2 appends "\n" to the value itself
    throw ValueError(std::string("unsupported operand type(s) for +=: '") + TypeName(v) + "' and 'str'");
  }
  std::vector<std::string> lines = PySplitLines(std::string(v.str()) + "\n", false);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) {
      out += "\n";
      if (blank || !lines[i].empty()) out += pad;
    }
    out += lines[i];
  }
  if (first) out = pad + out;
  return Value::String(out);
}

Value Center(Runtime&, const Value& v, CallArgs& a) {
  std::string s = ToStr(v);
  int64_t width = Arg(a, 0, "width").value_or(Value::Int(80)).as_int();
  int64_t len = static_cast<int64_t>(CodePointCount(s));
  if (width <= len) return Value::String(s);
  int64_t marg = width - len;
  int64_t left = marg / 2 + (marg & width & 1);
  return Value::String(std::string(left, ' ') + s + std::string(marg - left, ' '));
}

Value Escape(Runtime&, const Value& v, CallArgs&) {
  std::string out;
  for (char c : ToStr(v)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return Value::String(out);
}

Value Safe(Runtime&, const Value& v, CallArgs&) { return v.is_string() ? v : Value::String(ToStr(v)); }

Value Format(Runtime&, const Value& v, CallArgs& a) {
  if (!a.keyword.empty() && !a.positional.empty()) {
    throw ValueError("can't handle positional and keyword arguments at the same time");
  }
  if (!a.keyword.empty()) throw UnsupportedConstructError("format filter with keyword arguments", 0, 0);
  return Value::String(PercentFormat(ToStr(v), Value::List(a.positional, true)));
}

// jinja2: len(re.findall(r"\w+", s)); \w is a letter, a number or '_' (str.isalnum).
Value WordCount(Runtime&, const Value& v, CallArgs&) {
  std::string s = ToStr(v);
  int64_t n = 0;
  bool in_word = false;
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeUtf8(s, i);
    bool word = cp == '_' || tok::unicode::IsLetter(cp) || tok::unicode::IsNumber(cp);
    if (word && !in_word) ++n;
    in_word = word;
  }
  return Value::Int(n);
}

}  // namespace triton_studio::chat::detail::filters
