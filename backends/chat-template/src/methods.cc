// Python methods of str, list and dict that templates call (`content.strip()`, `d.items()`...),
// under ImmutableSandboxedEnvironment: methods that mutate a list or dict are refused.
#include <algorithm>
#include <cstring>

#include "builtins.h"
#include "objects.h"
#include "pystr.h"
#include "runtime.h"
#include "unicode.h"  // the tokenizer library's tables
#include "utf8.h"

namespace triton_studio::chat::detail {

namespace {

const char* const kStrSupported[] = {
    "capitalize", "center", "count", "endswith", "find", "format", "index", "isalnum", "isalpha", "isascii",
    "isdigit", "islower", "isspace", "isupper", "join", "ljust", "lower", "lstrip", "partition", "removeprefix",
    "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
    "startswith", "strip", "title", "upper", "zfill"};
const char* const kStrOther[] = {"casefold", "encode", "expandtabs", "format_map", "isdecimal", "isidentifier",
                                 "isnumeric", "isprintable", "istitle", "maketrans", "swapcase", "translate"};
const char* const kListSupported[] = {"copy", "count", "index"};
const char* const kListUnsafe[] = {"append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort"};
const char* const kDictSupported[] = {"copy", "get", "items", "keys", "values"};
const char* const kDictUnsafe[] = {"clear", "pop", "popitem", "setdefault", "update"};
const char* const kDictOther[] = {"fromkeys"};

template <size_t N>
bool In(const char* const (&names)[N], std::string_view name) {
  for (const char* n : names) {
    if (name == n) return true;
  }
  return false;
}

std::string StrArg(const CallArgs& a, size_t i, const char* name) {
  auto v = a.Get(i, name);
  if (!v || !v->is_string()) {
    throw ValueError(std::string("argument '") + name + "' must be str, not " + (v ? TypeName(*v) : "missing"));
  }
  return std::string(v->str());
}

std::optional<std::string> OptStrArg(const CallArgs& a, size_t i, const char* name) {
  auto v = a.Get(i, name);
  if (!v || v->is_none()) return std::nullopt;
  if (!v->is_string()) throw ValueError(std::string("argument '") + name + "' must be str or None");
  return std::string(v->str());
}

int64_t IntArg(const CallArgs& a, size_t i, const char* name, int64_t def) {
  auto v = a.Get(i, name);
  if (!v || v->is_none()) return def;
  if (v->type() != Type::Int && v->type() != Type::Bool) throw ValueError(std::string("argument '") + name + "' must be int");
  return v->as_int();
}

Value StrList(std::vector<std::string> parts) {
  std::vector<Value> out;
  out.reserve(parts.size());
  for (auto& p : parts) out.push_back(Value::String(std::move(p)));
  return Value::List(std::move(out));
}

bool AllAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// str.isalpha/isalnum/isdigit over code points. isdigit is exact for ASCII; other numbers
// (superscripts, fractions, Roman numerals...) differ between Nd and N, so they are named.
Value CharPredicate(std::string_view s, const char* name) {
  if (s.empty()) return Value::Bool(false);
  std::string_view n(name);
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeUtf8(s, i);
    bool letter = tok::unicode::IsLetter(cp), number = tok::unicode::IsNumber(cp);
    bool ok;
    if (n == "isalpha") {
      ok = letter;
    } else if (n == "isalnum") {
      ok = letter || number;
    } else {
      if (cp >= 0x80 && number) throw UnsupportedConstructError("str.isdigit() of non-ASCII numbers", 0, 0);
      ok = cp >= '0' && cp <= '9';
    }
    if (!ok) return Value::Bool(false);
  }
  return Value::Bool(true);
}

// Byte offset of code point index `cp` (clamped).
size_t ByteOffset(std::string_view s, int64_t cp) {
  size_t i = 0;
  for (int64_t k = 0; k < cp && i < s.size(); ++k) DecodeUtf8(s, i);
  return i;
}

Value Pad(std::string_view s, int64_t width, std::string_view fill, int mode) {  // 0 left-justify, 1 right
  int64_t len = static_cast<int64_t>(CodePointCount(s));
  if (width <= len) return Value::String(std::string(s));
  std::string pad;
  for (int64_t k = 0; k < width - len; ++k) pad += fill;
  return Value::String(mode == 0 ? std::string(s) + pad : pad + std::string(s));
}

bool AffixMatch(std::string_view s, const Value& affix, bool prefix) {
  auto one = [&](std::string_view a) {
    if (a.size() > s.size()) return false;
    return prefix ? s.substr(0, a.size()) == a : s.substr(s.size() - a.size()) == a;
  };
  if (affix.is_string()) return one(affix.str());
  if (affix.is_list() && affix.is_tuple()) {
    for (size_t i = 0; i < affix.size(); ++i) {
      Value x = affix.at(i);
      if (!x.is_string()) throw ValueError("tuple for startswith/endswith must only contain str");
      if (one(x.str())) return true;
    }
    return false;
  }
  throw ValueError(std::string(prefix ? "startswith" : "endswith") + " first arg must be str or a tuple of str, not " +
                   TypeName(affix));
}

// str.find/rfind/index/rindex: code point offsets.
Value StrFind(Runtime& rt, std::string_view s, std::string_view name, CallArgs& a) {
  std::string sub = StrArg(a, 0, "sub");
  if (a.positional.size() > 1) throw UnsupportedConstructError(std::string("str.") + std::string(name) + "() with start/end", rt.line(), 0);
  size_t f = (name == "find" || name == "index") ? s.find(sub) : s.rfind(sub);
  if (f == std::string_view::npos) {
    if (name == "index" || name == "rindex") throw ValueError("substring not found");
    return Value::Int(-1);
  }
  return Value::Int(static_cast<int64_t>(CodePointCount(s.substr(0, f))));
}

// str.join: every item a str, within the output limit.
Value StrJoin(Runtime& rt, std::string_view s, std::string_view, CallArgs& a) {
  auto items = a.Get(0, "iterable");
  if (!items) throw ValueError("join() takes exactly one argument");
  std::string out;
  bool first = true;
  for (const auto& item : Iterate(*items)) {
    if (!item.is_string()) throw ValueError(std::string("sequence item: expected str instance, ") + TypeName(item) + " found");
    if (!first) out += s;
    first = false;
    out += item.str();
    rt.CheckOutput(out.size());
  }
  return Value::String(out);
}

// str.partition/rpartition.
Value StrPartition(Runtime&, std::string_view s, std::string_view name, CallArgs& a) {
  std::string sep = StrArg(a, 0, "sep");
  if (sep.empty()) throw ValueError("empty separator");
  size_t f = name == "partition" ? s.find(sep) : s.rfind(sep);
  if (f == std::string_view::npos) {
    std::vector<Value> parts = {Value::String(std::string(s)), Value::String(""), Value::String("")};
    if (name == "rpartition") std::reverse(parts.begin(), parts.end());
    return Value::List(std::move(parts), true);
  }
  return Value::List({Value::String(std::string(s.substr(0, f))), Value::String(sep),
                      Value::String(std::string(s.substr(f + sep.size())))},
                     true);
}

// str.ljust/rjust/center, widths in code points.
Value StrJustify(Runtime&, std::string_view s, std::string_view name, CallArgs& a) {
  int64_t width = IntArg(a, 0, "width", 0);
  std::string fill = a.Get(1, "fillchar") ? StrArg(a, 1, "fillchar") : " ";
  if (name == "center") {
    int64_t len = static_cast<int64_t>(CodePointCount(s));
    if (width <= len) return Value::String(std::string(s));
    int64_t marg = width - len, left = marg / 2 + (marg & width & 1);
    std::string out;
    for (int64_t k = 0; k < left; ++k) out += fill;
    out += s;
    for (int64_t k = left; k < marg; ++k) out += fill;
    return Value::String(out);
  }
  return Pad(s, width, fill, name == "ljust" ? 0 : 1);
}

// str.zfill: zeros after the sign.
Value StrZfill(Runtime&, std::string_view s, std::string_view, CallArgs& a) {
  int64_t width = IntArg(a, 0, "width", 0);
  int64_t len = static_cast<int64_t>(CodePointCount(s));
  if (width <= len) return Value::String(std::string(s));
  std::string sign, rest(s);
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    sign = rest.substr(0, 1);
    rest = rest.substr(1);
  }
  return Value::String(sign + std::string(width - len, '0') + rest);
}

Value StrMethod(Runtime& rt, const Value& subject, std::string_view name, CallArgs& a) {
  std::string_view s = subject.str();
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    auto chars = OptStrArg(a, 0, "chars");
    std::optional<std::string_view> cv;
    if (chars) cv = *chars;
    return Value::String(std::string(PyStrip(s, cv, name != "rstrip", name != "lstrip")));
  }
  if (name == "split" || name == "rsplit") {
    auto sep = OptStrArg(a, 0, "sep");
    int64_t maxsplit = IntArg(a, 1, "maxsplit", -1);
    if (sep && sep->empty()) throw ValueError("empty separator");
    std::optional<std::string_view> sv;
    if (sep) sv = *sep;
    return StrList(PySplit(s, sv, maxsplit, name == "rsplit"));
  }
  if (name == "splitlines") return StrList(PySplitLines(s, a.Get(0, "keepends") && Truthy(*a.Get(0, "keepends"))));
  if (name == "startswith" || name == "endswith") {
    auto affix = a.Get(0, "prefix");
    if (!affix) throw ValueError(std::string(name) + "() takes at least 1 argument (0 given)");
    if (a.positional.size() > 1) throw UnsupportedConstructError(std::string("str.") + std::string(name) + "() with start/end", rt.line(), 0);
    return Value::Bool(AffixMatch(s, *affix, name == "startswith"));
  }
  if (name == "upper") return Value::String(PyUpper(s));
  if (name == "lower") return Value::String(PyLower(s));
  if (name == "title") return Value::String(PyTitle(s));
  if (name == "capitalize") return Value::String(PyCapitalize(s));
  if (name == "replace") {
    std::string from = StrArg(a, 0, "old"), to = StrArg(a, 1, "new");
    CallArgs fa;
    fa.positional = {Value::String(from), Value::String(to), Value::Int(IntArg(a, 2, "count", -1))};
    return rt.ApplyFilterByName("replace", subject, fa, rt.line());
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex") return StrFind(rt, s, name, a);
  if (name == "count") {
    std::string sub = StrArg(a, 0, "sub");
    if (sub.empty()) return Value::Int(static_cast<int64_t>(CodePointCount(s) + 1));
    int64_t n = 0;
    for (size_t f = s.find(sub); f != std::string_view::npos; f = s.find(sub, f + sub.size())) ++n;
    return Value::Int(n);
  }
  if (name == "join") return StrJoin(rt, s, name, a);
  if (name == "format") return Value::String(BraceFormat(s, a));
  if (name == "removeprefix" || name == "removesuffix") {
    std::string affix = StrArg(a, 0, name == "removeprefix" ? "prefix" : "suffix");
    if (affix.size() <= s.size()) {
      if (name == "removeprefix" && s.substr(0, affix.size()) == affix) return Value::String(std::string(s.substr(affix.size())));
      if (name == "removesuffix" && s.substr(s.size() - affix.size()) == affix) {
        return Value::String(std::string(s.substr(0, s.size() - affix.size())));
      }
    }
    return Value::String(std::string(s));
  }
  if (name == "partition" || name == "rpartition") return StrPartition(rt, s, name, a);
  if (name == "ljust" || name == "rjust" || name == "center") return StrJustify(rt, s, name, a);
  if (name == "zfill") return StrZfill(rt, s, name, a);
  if (name == "isdigit" || name == "isalpha" || name == "isalnum") return CharPredicate(s, std::string(name).c_str());
  if (name == "isascii") return Value::Bool(AllAscii(s));
  if (name == "isspace") {
    if (s.empty()) return Value::Bool(false);
    size_t i = 0;
    while (i < s.size()) {
      if (!IsPyWhitespace(DecodeUtf8(s, i))) return Value::Bool(false);
    }
    return Value::Bool(true);
  }
  if (name == "islower") return Value::Bool(PyIsLower(s));
  if (name == "isupper") return Value::Bool(PyIsUpper(s));
  (void)ByteOffset;
  throw UnsupportedConstructError("str." + std::string(name) + "()", rt.line(), 0);
}

Value ListMethod(Runtime& rt, const Value& subject, std::string_view name, CallArgs& a) {
  if (name == "copy") return Value::List(Iterate(subject), subject.is_tuple());
  auto x = a.Get(0, "value");
  if (!x) throw ValueError(std::string(name) + "() takes exactly one argument (0 given)");
  int64_t n = 0;
  for (size_t i = 0; i < subject.size(); ++i) {
    if (Equal(subject.at(i), *x)) {
      if (name == "index") return Value::Int(static_cast<int64_t>(i));
      ++n;
    }
  }
  if (name == "index") throw ValueError(Repr(*x) + " is not in list");
  (void)rt;
  return Value::Int(n);
}

Value DictMethod(Runtime&, const Value& subject, std::string_view name, CallArgs& a) {
  if (name == "get") {
    auto key = a.Get(0, "key");
    if (!key) throw ValueError("get expected at least 1 argument, got 0");
    Value def = a.Get(1, "default").value_or(Value::None());
    if (!key->is_string()) return def;
    auto v = subject.get(key->str());
    return v ? *v : def;
  }
  std::vector<Value> out;
  if (name == "items") {
    subject.ForEachEntry([&](const Value& k, const Value& v) { out.push_back(Value::List({k, v}, true)); });
    return Value::DictView(std::move(out), "dict_items");
  } else if (name == "keys") {
    subject.ForEachEntry([&](const Value& k, const Value&) { out.push_back(k); });
    return Value::DictView(std::move(out), "dict_keys");
  } else if (name == "values") {
    subject.ForEachEntry([&](const Value&, const Value& v) { out.push_back(v); });
    return Value::DictView(std::move(out), "dict_values");
  } else {  // copy
    auto d = std::make_shared<DictObject>();
    subject.ForEachEntry([&](const Value& k, const Value& v) { d->Set(k.str(), v); });
    return Value::Dict(std::move(d));
  }
  return Value::List(std::move(out));
}

struct BoundMethodObject : CallableObject {
  Value subject;
  std::string name;
  const char* TypeName() const override { return "builtin_function_or_method"; }
  bool Callable() const override { return true; }
  Value Call(Runtime& rt, CallArgs& args, int line) override {
    return detail::CallMethod(rt, subject, name, args, line);
  }
  std::string Repr() const override {
    throw UnsupportedConstructError("printing the method '" + name + "' (jinja2 prints its memory address)", 0, 0);
  }
};

}  // namespace

MethodKind LookupMethod(const Value& subject, std::string_view name) {
  switch (subject.type()) {
    case Type::String:
      if (In(kStrSupported, name)) return MethodKind::Supported;
      if (In(kStrOther, name)) return MethodKind::Unsupported;
      return MethodKind::None;
    case Type::List:
      if (subject.is_generator() || subject.view()) return MethodKind::None;
      if (In(kListSupported, name)) return MethodKind::Supported;
      if (In(kListUnsafe, name)) return MethodKind::Unsafe;
      return MethodKind::None;
    case Type::Dict:
      if (In(kDictSupported, name)) return MethodKind::Supported;
      if (In(kDictUnsafe, name)) return MethodKind::Unsafe;
      if (In(kDictOther, name)) return MethodKind::Unsupported;
      return MethodKind::None;
    default:
      return MethodKind::None;
  }
}

Value CallMethod(Runtime& rt, const Value& subject, std::string_view name, CallArgs& args, int line) {
  switch (LookupMethod(subject, name)) {
    case MethodKind::None:
      throw ValueError(std::string("'") + TypeName(subject) + "' object has no attribute '" + std::string(name) + "'");
    case MethodKind::Unsafe:
      throw ValueError("access to attribute '" + std::string(name) + "' of '" + TypeName(subject) +
                       "' object is unsafe.");
    case MethodKind::Unsupported:
      throw UnsupportedConstructError(std::string(TypeName(subject)) + "." + std::string(name) + "()", line, 0);
    case MethodKind::Supported:
      break;
  }
  if (subject.is_string()) return StrMethod(rt, subject, name, args);
  if (subject.is_list()) return ListMethod(rt, subject, name, args);
  return DictMethod(rt, subject, name, args);
}

Value BoundMethod(const Value& subject, std::string_view name) {
  auto m = std::make_shared<BoundMethodObject>();
  m->subject = subject;
  m->name = std::string(name);
  return Value::Obj(std::move(m));
}

}  // namespace triton_studio::chat::detail
