// jinja2's builtin filters as templates call them, with transformers' `tojson`.
#include <algorithm>
#include <cerrno>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "builtins.h"
#include "pystr.h"
#include "runtime.h"
#include "unicode.h"  // the tokenizer library's tables
#include "utf8.h"

namespace triton_studio::chat::detail {

namespace {

std::optional<Value> Arg(const CallArgs& a, size_t i, std::string_view name) { return a.Get(i, name); }

bool ArgBool(const CallArgs& a, size_t i, std::string_view name, bool def) {
  auto v = Arg(a, i, name);
  return v ? Truthy(*v) : def;
}

std::string ArgStr(const CallArgs& a, size_t i, std::string_view name, std::string def) {
  auto v = Arg(a, i, name);
  return v && !v->is_undefined() ? ToStr(*v) : def;
}

std::vector<Value> Items(const Value& v) {
  if (v.is_none()) throw ValueError("'NoneType' object is not iterable");
  return Iterate(v);
}

// jinja2's attribute paths for sort/map/selectattr...: "a.b", numeric parts index lists.
Value GetPath(Runtime& rt, const Value& item, std::string_view path) {
  Value cur = item;
  size_t pos = 0;
  while (true) {
    size_t dot = path.find('.', pos);
    std::string_view part = path.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (cur.is_undefined()) return cur;
    cur = numeric ? rt.GetItem(cur, Value::Int(std::atoll(std::string(part).c_str())), rt.line())
                  : rt.GetItem(cur, Value::String(std::string(part)), rt.line());
    if (dot == std::string_view::npos) return cur;
    pos = dot + 1;
  }
}

// The sort key: strings lower-cased unless case_sensitive.
Value SortKey(const Value& v, bool case_sensitive) {
  if (!case_sensitive && v.is_string()) return Value::String(PyLower(v.str()));
  return v;
}

Value Length(Runtime&, const Value& v, CallArgs&) {
  if (v.is_undefined()) return Value::Int(0);
  if (v.is_string()) return Value::Int(static_cast<int64_t>(CodePointCount(v.str())));
  if ((v.is_list() && !v.is_generator()) || v.is_dict()) return Value::Int(static_cast<int64_t>(v.size()));
  throw ValueError(std::string("object of type '") + TypeName(v) + "' has no len()");
}

Value Default(Runtime&, const Value& v, CallArgs& a) {
  Value def = Arg(a, 0, "default_value").value_or(Value::String(""));
  bool boolean = ArgBool(a, 1, "boolean", false);
  if (v.is_undefined() || (boolean && !Truthy(v))) return def;
  return v;
}

Value ToJson(Runtime&, const Value& v, CallArgs& a) {
  JsonDumpOptions o;
  o.ensure_ascii = ArgBool(a, 0, "ensure_ascii", false);
  auto indent = Arg(a, 1, "indent");
  if (indent && !indent->is_none()) {
    if (indent->is_string()) {
      o.indent = std::string(indent->str());
    } else if (indent->type() == Type::Int || indent->type() == Type::Bool) {
      o.indent = std::string(static_cast<size_t>(std::max<int64_t>(0, indent->as_int())), ' ');
    } else {
      throw ValueError("tojson: indent must be an int or a string");
    }
    o.item_separator = ",";
  }
  auto seps = Arg(a, 2, "separators");
  if (seps && !seps->is_none()) {
    if (!seps->is_list() || seps->size() != 2 || !seps->at(0).is_string() || !seps->at(1).is_string()) {
      throw ValueError("tojson: separators must be a pair of strings");
    }
    o.item_separator = std::string(seps->at(0).str());
    o.key_separator = std::string(seps->at(1).str());
  }
  o.sort_keys = ArgBool(a, 3, "sort_keys", false);
  return Value::String(JsonDumps(v, o));
}

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

Value Join(Runtime& rt, const Value& v, CallArgs& a) {
  std::string sep = ArgStr(a, 0, "d", "");
  auto attr = Arg(a, 1, "attribute");
  std::string out;
  bool first = true;
  for (const auto& item : Items(v)) {
    if (!first) out += sep;
    first = false;
    AppendStr(out, attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item);
    rt.CheckOutput(out.size());
  }
  return Value::String(out);
}

Value First(Runtime&, const Value& v, CallArgs&) {
  if (v.is_generator()) {  // next(iter(gen)): takes one item only
    const ListObject* g = ValueAccess::list(v);
    return g->consumed < g->items.size() ? g->items[g->consumed++] : Value();
  }
  auto items = Items(v);
  return items.empty() ? Value() : items.front();
}

Value Last(Runtime&, const Value& v, CallArgs&) {
  if (v.is_generator()) throw ValueError("'generator' object is not reversible");
  auto items = Items(v);
  return items.empty() ? Value() : items.back();
}

Value ToList(Runtime&, const Value& v, CallArgs&) { return Value::List(Items(v)); }

Value ToString(Runtime&, const Value& v, CallArgs&) { return Value::String(ToStr(v)); }

Value ToInt(Runtime&, const Value& v, CallArgs& a) {
  Value def = Arg(a, 0, "default").value_or(Value::Int(0));
  int64_t base = Arg(a, 1, "base").value_or(Value::Int(10)).as_int();
  if (v.is_undefined()) throw ValueError("an undefined value has no int() (int filter)");
  if (v.type() == Type::Int || v.type() == Type::Bool) return Value::Int(v.as_int());
  if (v.type() == Type::Float) return Value::Int(FloatToInt(v.as_double()));
  if (v.is_string()) {
    std::string s(PyStrip(v.str(), std::nullopt, true, true));
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    if (!s.empty()) {
      char* end = nullptr;
      errno = 0;
      long long r = std::strtoll(s.c_str(), &end, static_cast<int>(base));
      if (*end == 0 && errno == 0) return Value::Int(r);
      if (errno == ERANGE && *end == 0) throw UnsupportedConstructError("integers beyond 64 bits", 0, 0);
      double d = std::strtod(s.c_str(), &end);
      if (*end == 0 && !std::isnan(d)) return Value::Int(FloatToInt(d));
    }
  }
  return def;
}

Value ToFloat(Runtime&, const Value& v, CallArgs& a) {
  Value def = Arg(a, 0, "default").value_or(Value::Float(0.0));
  if (v.is_undefined()) throw ValueError("an undefined value has no float() (float filter)");
  if (v.is_number()) return Value::Float(v.as_double());
  if (v.is_string()) {
    std::string s(PyStrip(v.str(), std::nullopt, true, true));
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && *end == 0) return Value::Float(d);
  }
  return def;
}

Value Abs(Runtime&, const Value& v, CallArgs&) {
  if (v.type() == Type::Float) return Value::Float(std::fabs(v.as_double()));
  if (v.is_number()) {
    if (v.as_int() == INT64_MIN) throw UnsupportedConstructError("integers beyond 64 bits", 0, 0);
    return Value::Int(std::llabs(v.as_int()));
  }
  throw ValueError(std::string("bad operand type for abs(): '") + TypeName(v) + "'");
}

// Python's round(x, n): correctly rounded, ties to even.
double PyRound(double x, int64_t n) {
  if (n == 0) {
    std::fesetround(FE_TONEAREST);
    return std::nearbyint(x);
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(std::clamp<int64_t>(n, 0, 300)), x);
  return std::strtod(buf, nullptr);
}

Value Round(Runtime&, const Value& v, CallArgs& a) {
  int64_t precision = Arg(a, 0, "precision").value_or(Value::Int(0)).as_int();
  std::string method = ArgStr(a, 1, "method", "common");
  if (!v.is_number()) throw ValueError("round: a number is required");
  if (method == "common") {
    if (v.type() != Type::Float) return Value::Int(v.as_int());
    return Value::Float(PyRound(v.as_double(), precision));
  }
  double scale = std::pow(10.0, static_cast<double>(precision));
  if (method == "floor") return Value::Float(std::floor(v.as_double() * scale) / scale);
  if (method == "ceil") return Value::Float(std::ceil(v.as_double() * scale) / scale);
  throw ValueError("method must be common, ceil or floor");
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

Value Count(Runtime& rt, const Value& v, CallArgs& a) { return Length(rt, v, a); }

Value ItemsFilter(Runtime&, const Value& v, CallArgs&) {
  if (v.is_undefined()) return Value::Generator({});
  if (!v.is_dict()) throw ValueError("Can only get item pairs from a mapping.");
  std::vector<Value> out;
  v.ForEachEntry([&](const Value& k, const Value& item) { out.push_back(Value::List({k, item}, true)); });
  return Value::Generator(std::move(out));
}

Value DictSort(Runtime&, const Value& v, CallArgs& a) {
  if (!v.is_dict()) throw ValueError("dictsort: a mapping is required");
  bool cs = ArgBool(a, 0, "case_sensitive", false);
  std::string by = ArgStr(a, 1, "by", "key");
  bool reverse = ArgBool(a, 2, "reverse", false);
  int pos = by == "key" ? 0 : by == "value" ? 1 : -1;
  if (pos < 0) throw ValueError("You can only sort by either \"key\" or \"value\"");
  std::vector<Value> out;
  v.ForEachEntry([&](const Value& k, const Value& item) { out.push_back(Value::List({k, item}, true)); });
  std::stable_sort(out.begin(), out.end(), [&](const Value& x, const Value& y) {
    Value kx = SortKey(x.at(pos), cs), ky = SortKey(y.at(pos), cs);
    return reverse ? Less(ky, kx) : Less(kx, ky);
  });
  return Value::List(std::move(out));
}

Value Sort(Runtime& rt, const Value& v, CallArgs& a) {
  bool reverse = ArgBool(a, 0, "reverse", false);
  bool cs = ArgBool(a, 1, "case_sensitive", false);
  auto attr = Arg(a, 2, "attribute");
  std::vector<Value> items = Items(v);
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& item : items) {
    Value key = attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item;
    keyed.emplace_back(SortKey(key, cs), item);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? Less(y.first, x.first) : Less(x.first, y.first);
  });
  std::vector<Value> out;
  for (auto& [k, item] : keyed) out.push_back(item);
  return Value::List(std::move(out));
}

Value Reverse(Runtime&, const Value& v, CallArgs&) {
  if (v.is_string()) {
    auto chars = Iterate(v);
    std::string out;
    for (auto it = chars.rbegin(); it != chars.rend(); ++it) out += it->str();
    return Value::String(out);
  }
  auto items = Items(v);
  std::reverse(items.begin(), items.end());
  return Value::Generator(std::move(items));
}

Value Unique(Runtime& rt, const Value& v, CallArgs& a) {
  bool cs = ArgBool(a, 0, "case_sensitive", false);
  auto attr = Arg(a, 1, "attribute");
  std::vector<Value> seen, out;
  for (auto& item : Items(v)) {
    Value key = SortKey(attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item, cs);
    if (key.is_list() && !key.is_tuple()) throw ValueError("unhashable type: 'list'");
    if (key.is_dict()) throw ValueError("unhashable type: 'dict'");
    bool dup = false;
    for (const auto& s : seen) {
      if (Equal(s, key)) {
        dup = true;
        break;
      }
    }
    if (dup) continue;
    seen.push_back(key);
    out.push_back(item);
  }
  return Value::Generator(std::move(out));
}

Value MinMax(Runtime& rt, const Value& v, CallArgs& a, bool max) {
  bool cs = ArgBool(a, 0, "case_sensitive", false);
  auto attr = Arg(a, 1, "attribute");
  auto items = Items(v);
  if (items.empty()) return Value();
  Value best = items[0];
  Value best_key = SortKey(attr && !attr->is_none() ? GetPath(rt, best, ToStr(*attr)) : best, cs);
  for (size_t i = 1; i < items.size(); ++i) {
    Value key = SortKey(attr && !attr->is_none() ? GetPath(rt, items[i], ToStr(*attr)) : items[i], cs);
    if (max ? Less(best_key, key) : Less(key, best_key)) {
      best = items[i];
      best_key = key;
    }
  }
  return best;
}
Value Max(Runtime& rt, const Value& v, CallArgs& a) { return MinMax(rt, v, a, true); }
Value Min(Runtime& rt, const Value& v, CallArgs& a) { return MinMax(rt, v, a, false); }

Value Sum(Runtime& rt, const Value& v, CallArgs& a) {
  auto attr = Arg(a, 0, "attribute");
  Value total = Arg(a, 1, "start").value_or(Value::Int(0));
  for (auto& item : Items(v)) {
    Value x = attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item;
    if (!x.is_number() || !total.is_number()) throw ValueError("sum: numbers are required");
    if (x.type() == Type::Float || total.type() == Type::Float) {
      total = Value::Float(total.as_double() + x.as_double());
    } else {
      int64_t sum;
      if (__builtin_add_overflow(total.as_int(), x.as_int(), &sum)) throw UnsupportedConstructError("integers beyond 64 bits", 0, 0);
      total = Value::Int(sum);
    }
  }
  return total;
}

Value Map(Runtime& rt, const Value& v, CallArgs& a) {
  std::vector<Value> out;
  if (!Truthy(v)) return Value::Generator({});  // jinja2 iterates only a truthy value
  auto attr = a.Get(SIZE_MAX, "attribute");
  if (attr) {
    auto def = a.Get(SIZE_MAX, "default");
    for (auto& item : Items(v)) {
      Value x = GetPath(rt, item, ToStr(*attr));
      out.push_back(x.is_undefined() && def ? *def : x);
    }
    return Value::Generator(std::move(out));
  }
  if (a.positional.empty()) throw ValueError("map requires a filter argument");
  std::string name = ToStr(a.positional[0]);
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keyword = a.keyword;
  for (auto& item : Items(v)) {
    CallArgs copy = rest;
    out.push_back(rt.ApplyFilterByName(name, item, copy, rt.line()));
  }
  return Value::Generator(std::move(out));
}

Value SelectOrReject(Runtime& rt, const Value& v, CallArgs& a, bool attr_mode, bool select) {
  size_t first = 0;
  std::string attr;
  if (attr_mode) {
    if (a.positional.empty()) throw ValueError("selectattr/rejectattr need an attribute name");
    attr = ToStr(a.positional[0]);
    first = 1;
  }
  std::optional<std::string> test;
  if (a.positional.size() > first) test = ToStr(a.positional[first]);
  CallArgs rest;
  if (a.positional.size() > first + 1) rest.positional.assign(a.positional.begin() + first + 1, a.positional.end());
  rest.keyword = a.keyword;
  std::vector<Value> out;
  if (!Truthy(v)) return Value::Generator({});  // jinja2 iterates only a truthy value
  for (auto& item : Items(v)) {
    Value subject = attr_mode ? GetPath(rt, item, attr) : item;
    bool r;
    if (test) {
      CallArgs copy = rest;
      r = rt.ApplyTestByName(*test, subject, copy, rt.line());
    } else {
      r = Truthy(subject);
    }
    if (r == select) out.push_back(item);
  }
  return Value::Generator(std::move(out));
}
Value Select(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, false, true); }
Value Reject(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, false, false); }
Value SelectAttr(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, true, true); }
Value RejectAttr(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, true, false); }

Value Attr(Runtime& rt, const Value& v, CallArgs& a) {
  return rt.GetAttr(v, ArgStr(a, 0, "name", ""), rt.line());
}

Value Batch(Runtime&, const Value& v, CallArgs& a) {
  int64_t n = Arg(a, 0, "linecount").value_or(Value::Int(1)).as_int();
  if (n <= 0) throw ValueError("batch: linecount must be positive");
  auto fill = Arg(a, 1, "fill_with");
  std::vector<Value> out, cur;
  for (auto& item : Items(v)) {
    cur.push_back(item);
    if (static_cast<int64_t>(cur.size()) == n) {
      out.push_back(Value::List(std::move(cur)));
      cur.clear();
    }
  }
  if (!cur.empty()) {
    if (fill && !fill->is_none()) {
      while (static_cast<int64_t>(cur.size()) < n) cur.push_back(*fill);
    }
    out.push_back(Value::List(std::move(cur)));
  }
  return Value::Generator(std::move(out));
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

const FilterFn kFilters[] = {
    {"abs", Abs},
    {"attr", Attr},
    {"batch", Batch},
    {"capitalize", Capitalize},
    {"center", Center},
    {"count", Count},
    {"d", Default},
    {"default", Default},
    {"dictsort", DictSort},
    {"e", Escape},
    {"escape", Escape},
    {"first", First},
    {"float", ToFloat},
    {"forceescape", Escape},
    {"format", Format},
    {"indent", Indent},
    {"int", ToInt},
    {"items", ItemsFilter},
    {"join", Join},
    {"last", Last},
    {"length", Length},
    {"list", ToList},
    {"lower", Lower},
    {"map", Map},
    {"max", Max},
    {"min", Min},
    {"reject", Reject},
    {"rejectattr", RejectAttr},
    {"replace", Replace},
    {"reverse", Reverse},
    {"round", Round},
    {"safe", Safe},
    {"select", Select},
    {"selectattr", SelectAttr},
    {"sort", Sort},
    {"string", ToString},
    {"sum", Sum},
    {"title", Title},
    {"tojson", ToJson},
    {"trim", Trim},
    {"unique", Unique},
    {"upper", Upper},
    {"wordcount", WordCount},
};

const char* const kJinjaFilters[] = {
    "abs",       "attr",      "batch",  "capitalize", "center",  "count",   "d",          "default",
    "dictsort",  "e",         "escape", "filesizeformat", "first", "float", "forceescape", "format",
    "groupby",   "indent",    "int",    "items",      "join",    "last",    "length",     "list",
    "lower",     "map",       "max",    "min",        "pprint",  "random",  "reject",     "rejectattr",
    "replace",   "reverse",   "round",  "safe",       "select",  "selectattr", "slice",   "sort",
    "string",    "striptags", "sum",    "title",      "tojson",  "trim",    "truncate",   "unique",
    "upper",     "urlencode", "urlize", "wordcount",  "wordwrap", "xmlattr",
};

}  // namespace

const FilterFn* FindFilter(std::string_view name) {
  for (const auto& f : kFilters) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

bool IsJinjaFilter(std::string_view name) {
  for (const char* f : kJinjaFilters) {
    if (name == f) return true;
  }
  return false;
}

}  // namespace triton_studio::chat::detail
