// Python semantics of the value model: truthiness, ==, <, str(), repr(), iteration, json.dumps.
#include "value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "utf8.h"

namespace triton_studio::chat::detail {

namespace {

constexpr int kMaxNesting = 512;  // deeper data is an error, never a stack overflow

void CheckNesting(int depth) {
  if (depth > kMaxNesting) throw ValueError("data nested too deeply (more than 512 levels)");
}

bool EqualAt(const Value& a, const Value& b, int depth);
bool LessAt(const Value& a, const Value& b, int depth);

}  // namespace

const Value* DictObject::Find(std::string_view key) const {
  for (const auto& [k, v] : items) {
    if (k == key) return &v;
  }
  return nullptr;
}

void DictObject::Set(std::string_view key, Value value) {
  for (auto& [k, v] : items) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items.emplace_back(std::string(key), std::move(value));
}

std::optional<Value> CallableObject::GetAttr(std::string_view) const { return std::nullopt; }

Value CallableObject::Call(Runtime&, CallArgs&, int) {
  throw ValueError(std::string("'") + TypeName() + "' object is not callable");
}

std::optional<Value> CallableObject::CallMethod(Runtime&, std::string_view, CallArgs&, int) {
  return std::nullopt;
}

std::string CallableObject::Repr() const { return std::string("<") + TypeName() + " object>"; }

Value Value::String(std::string s) {
  auto o = std::make_shared<StringObject>(std::move(s));
  Value v(Type::String);
  v.s_ = &o->s;
  v.obj_ = std::move(o);
  return v;
}

Value Value::FromJson(const Json* j, std::shared_ptr<Object> owner) {
  switch (j->type()) {
    case Json::value_t::null:
      return None();
    case Json::value_t::boolean:
      return Bool(j->get<bool>());
    case Json::value_t::number_integer:
      return Int(j->get<int64_t>());
    case Json::value_t::number_unsigned:
      return Int(static_cast<int64_t>(j->get<uint64_t>()));
    case Json::value_t::number_float:
      return Float(j->get<double>());
    case Json::value_t::string:
      return StringRef(&j->get_ref<const std::string&>(), std::move(owner));
    case Json::value_t::array:
    case Json::value_t::object: {
      Value v(j->is_array() ? Type::List : Type::Dict);
      v.json_ = true;
      v.j_ = j;
      v.obj_ = std::move(owner);
      return v;
    }
    default:
      return Value();
  }
}

Value Value::List(std::vector<Value> items, bool tuple) {
  auto o = std::make_shared<ListObject>();
  o->items = std::move(items);
  o->tuple = tuple;
  Value v(Type::List);
  v.obj_ = std::move(o);
  return v;
}

Value Value::Generator(std::vector<Value> items) {
  Value v = List(std::move(items));
  std::static_pointer_cast<ListObject>(v.obj_)->generator = true;
  return v;
}

Value Value::DictView(std::vector<Value> items, const char* view) {
  Value v = List(std::move(items));
  std::static_pointer_cast<ListObject>(v.obj_)->view = view;
  return v;
}

const char* Value::view() const {
  return type_ == Type::List && !json_ ? static_cast<const ListObject*>(obj_.get())->view : nullptr;
}

bool Value::is_generator() const {
  return type_ == Type::List && !json_ && static_cast<const ListObject*>(obj_.get())->generator;
}

Value Value::Dict(std::shared_ptr<DictObject> d) {
  Value v(Type::Dict);
  v.obj_ = std::move(d);
  return v;
}

bool Value::is_tuple() const {
  return type_ == Type::List && !json_ && static_cast<const ListObject*>(obj_.get())->tuple;
}

size_t Value::size() const {
  if (json_) return j_->size();
  if (type_ == Type::List) return static_cast<const ListObject*>(obj_.get())->items.size();
  if (type_ == Type::Dict) return static_cast<const DictObject*>(obj_.get())->items.size();
  return 0;
}

Value Value::at(size_t i) const {
  if (json_) return FromJson(&(*j_)[i], obj_);
  return static_cast<const ListObject*>(obj_.get())->items[i];
}

std::optional<Value> Value::get(std::string_view key) const {
  if (json_) {
    for (const auto& [k, item] : j_->get_ref<const Json::object_t&>()) {
      if (k == key) return FromJson(&item, obj_);
    }
    return std::nullopt;
  }
  const Value* found = static_cast<const DictObject*>(obj_.get())->Find(key);
  if (found) return *found;
  return std::nullopt;
}

bool Value::same_identity(const Value& o) const {
  if (type_ != o.type_) return false;
  if (json_ || o.json_) return json_ == o.json_ && j_ == o.j_;
  return obj_ == o.obj_;
}

std::optional<Value> CallArgs::Get(size_t index, std::string_view name) const {
  if (index < positional.size()) return positional[index];
  for (const auto& [k, v] : keyword) {
    if (k == name) return v;
  }
  return std::nullopt;
}

int64_t FloatToInt(double d) {
  if (std::isnan(d)) throw ValueError("cannot convert float NaN to integer");
  if (std::isinf(d)) throw ValueError("cannot convert float infinity to integer");
  double t = std::trunc(d);
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) {
    throw UnsupportedConstructError("integers beyond 64 bits", 0, 0);
  }
  return static_cast<int64_t>(t);
}

bool Truthy(const Value& v) {
  switch (v.type()) {
    case Type::Undefined:
    case Type::None:
      return false;
    case Type::Bool:
      return v.as_bool();
    case Type::Int:
      return v.as_int() != 0;
    case Type::Float:
      return v.as_double() != 0.0;
    case Type::String:
      return !v.str().empty();
    case Type::List:
      return v.is_generator() || v.size() != 0;
    case Type::Dict:
      return v.size() != 0;
    case Type::Object:
      return true;
  }
  return true;
}

bool Equal(const Value& a, const Value& b) { return EqualAt(a, b, 0); }
bool Less(const Value& a, const Value& b) { return LessAt(a, b, 0); }

namespace {

bool EqualAt(const Value& a, const Value& b, int depth) {
  CheckNesting(depth);
  if (a.is_number() && b.is_number()) {
    if (a.type() == Type::Float || b.type() == Type::Float) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Undefined:
    case Type::None:
      return true;
    case Type::String:
      return a.str() == b.str();
    case Type::List: {
      if (a.is_generator() || b.is_generator()) return a.same_identity(b);
      if ((a.view() != nullptr) != (b.view() != nullptr)) return false;
      if (a.is_tuple() != b.is_tuple() || a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!EqualAt(a.at(i), b.at(i), depth + 1)) return false;
      }
      return true;
    }
    case Type::Dict: {
      if (a.size() != b.size()) return false;
      bool equal = true;
      a.ForEachEntry([&](const Value& k, const Value& v) {
        if (!equal) return;
        auto other = b.get(k.str());
        equal = other && EqualAt(v, *other, depth + 1);
      });
      return equal;
    }
    case Type::Object:
      return a.same_identity(b);
    default:
      return false;
  }
}

bool LessAt(const Value& a, const Value& b, int depth) {
  CheckNesting(depth);
  if (a.is_number() && b.is_number()) {
    if (a.type() == Type::Float || b.type() == Type::Float) return a.as_double() < b.as_double();
    return a.as_int() < b.as_int();
  }
  if (a.is_string() && b.is_string()) return a.str() < b.str();  // UTF-8 order is code point order
  if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      Value x = a.at(i), y = b.at(i);
      if (!EqualAt(x, y, depth + 1)) return LessAt(x, y, depth + 1);
    }
    return a.size() < b.size();
  }
  throw ValueError(std::string("'<' not supported between instances of '") + TypeName(a) + "' and '" +
                   TypeName(b) + "'");
}

}  // namespace

const char* TypeName(const Value& v) {
  switch (v.type()) {
    case Type::Undefined:
      return "Undefined";
    case Type::None:
      return "NoneType";
    case Type::Bool:
      return "bool";
    case Type::Int:
      return "int";
    case Type::Float:
      return "float";
    case Type::String:
      return "str";
    case Type::List:
      return v.is_generator() ? "generator" : v.view() ? v.view() : v.is_tuple() ? "tuple" : "list";
    case Type::Dict:
      return "dict";
    case Type::Object:
      return v.object()->TypeName();
  }
  return "object";
}

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

std::vector<Value> Iterate(const Value& v) {
  std::vector<Value> out;
  switch (v.type()) {
    case Type::Undefined:
      return out;
    case Type::List:
      if (v.is_generator()) {
        const ListObject* g = ValueAccess::list(v);
        out.assign(g->items.begin() + static_cast<std::ptrdiff_t>(g->consumed), g->items.end());
        g->consumed = g->items.size();
        return out;
      }
      out.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) out.push_back(v.at(i));
      return out;
    case Type::Dict:
      v.ForEachEntry([&](const Value& k, const Value&) { out.push_back(k); });
      return out;
    case Type::String: {
      std::string_view s = v.str();
      size_t i = 0;
      while (i < s.size()) {
        size_t start = i;
        DecodeUtf8(s, i);
        out.push_back(Value::String(std::string(s.substr(start, i - start))));
      }
      return out;
    }
    default:
      throw ValueError(std::string("'") + TypeName(v) + "' object is not iterable");
  }
}

std::string JsonDumps(const Value& v, const JsonDumpOptions& options) {
  std::string out;
  AppendJson(out, v, options, 0);
  return out;
}

}  // namespace triton_studio::chat::detail
