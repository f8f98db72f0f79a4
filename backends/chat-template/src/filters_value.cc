// jinja2's filters over single values: default, tojson (transformers' flavour), string, int,
// float, abs and round (Python's conversions and correctly rounded round()).
#include <cerrno>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "filters.h"
#include "pystr.h"

namespace triton_studio::chat::detail::filters {

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

namespace {

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

}  // namespace

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

}  // namespace triton_studio::chat::detail::filters
