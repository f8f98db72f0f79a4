// jinja2's builtin tests (`x is defined`, `x is string`, ...).
#include <cmath>

#include "builtins.h"
#include "objects.h"
#include "pystr.h"
#include "runtime.h"

namespace triton_studio::chat::detail {

namespace {

Value Other(const CallArgs& a) {
  auto v = a.Get(0, "other");
  if (!v) v = a.Get(0, "value");
  if (!v) throw ValueError("test needs an argument");
  return *v;
}

bool Defined(Runtime&, const Value& v, CallArgs&) { return !v.is_undefined(); }
bool Undefined(Runtime&, const Value& v, CallArgs&) { return v.is_undefined(); }
bool None(Runtime&, const Value& v, CallArgs&) { return v.is_none(); }
bool Boolean(Runtime&, const Value& v, CallArgs&) { return v.type() == Type::Bool; }
bool True(Runtime&, const Value& v, CallArgs&) { return v.type() == Type::Bool && v.as_bool(); }
bool False(Runtime&, const Value& v, CallArgs&) { return v.type() == Type::Bool && !v.as_bool(); }
bool Integer(Runtime&, const Value& v, CallArgs&) { return v.type() == Type::Int; }
bool Float(Runtime&, const Value& v, CallArgs&) { return v.type() == Type::Float; }
bool Number(Runtime&, const Value& v, CallArgs&) { return v.is_number(); }
bool String(Runtime&, const Value& v, CallArgs&) { return v.is_string(); }
bool Mapping(Runtime&, const Value& v, CallArgs&) { return v.is_dict(); }
bool Iterable(Runtime&, const Value& v, CallArgs&) {
  return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict() ||
         (v.type() == Type::Object && dynamic_cast<LoopObject*>(v.object()) != nullptr);
}
bool Sequence(Runtime&, const Value& v, CallArgs&) {
  return v.is_undefined() || v.is_string() || (v.is_list() && !v.is_generator() && !v.view()) || v.is_dict();
}
bool Callable(Runtime&, const Value& v, CallArgs&) {
  return v.type() == Type::Object && v.object()->Callable();
}
bool Escaped(Runtime&, const Value&, CallArgs&) { return false; }
bool Lower(Runtime&, const Value& v, CallArgs&) { return PyIsLower(ToStr(v)); }
bool Upper(Runtime&, const Value& v, CallArgs&) { return PyIsUpper(ToStr(v)); }
// jinja2: value % 2 == 0 / == 1 with Python's modulo (for floats, -0.5 is neither).
double PyMod2(const Value& v, const char* test) {
  if (!v.is_number()) throw ValueError(std::string(test) + ": a number is required");
  if (v.type() != Type::Float) return static_cast<double>(((v.as_int() % 2) + 2) % 2);
  double m = std::fmod(v.as_double(), 2.0);
  return m < 0 ? m + 2.0 : m;
}
bool Even(Runtime&, const Value& v, CallArgs&) { return PyMod2(v, "even") == 0; }
bool Odd(Runtime&, const Value& v, CallArgs&) { return PyMod2(v, "odd") == 1; }
bool DivisibleBy(Runtime&, const Value& v, CallArgs& a) {
  auto n = a.Get(0, "num");
  if (!n || !n->is_number() || !v.is_number()) throw ValueError("divisibleby: numbers are required");
  if (n->as_double() == 0) throw ValueError("integer division or modulo by zero");
  if (v.type() == Type::Float || n->type() == Type::Float) return std::fmod(v.as_double(), n->as_double()) == 0;
  int64_t m = v.as_int() % n->as_int();
  return m == 0;
}
bool Eq(Runtime&, const Value& v, CallArgs& a) { return Equal(v, Other(a)); }
bool Ne(Runtime&, const Value& v, CallArgs& a) { return !Equal(v, Other(a)); }
bool Lt(Runtime&, const Value& v, CallArgs& a) { return Less(v, Other(a)); }
bool Gt(Runtime&, const Value& v, CallArgs& a) { return Less(Other(a), v); }
bool Le(Runtime&, const Value& v, CallArgs& a) { Value o = Other(a); return Less(v, o) || Equal(v, o); }
bool Ge(Runtime&, const Value& v, CallArgs& a) { Value o = Other(a); return Less(o, v) || Equal(v, o); }
bool In(Runtime&, const Value& v, CallArgs& a) {
  auto seq = a.Get(0, "seq");
  if (!seq) throw ValueError("in: a container is required");
  if (seq->is_string()) {
    if (!v.is_string()) throw ValueError(std::string("'in <string>' requires string as left operand, not ") + TypeName(v));
    return seq->str().find(v.str()) != std::string_view::npos;
  }
  if (seq->is_dict()) return v.is_string() && seq->get(v.str()).has_value();
  for (const auto& item : Iterate(*seq)) {
    if (Equal(item, v)) return true;
  }
  return false;
}
bool SameAs(Runtime&, const Value& v, CallArgs& a) {
  Value o = Other(a);
  if (v.type() != o.type()) return false;
  switch (v.type()) {
    case Type::None:
    case Type::Undefined:
      return true;
    case Type::Bool:
      return v.as_bool() == o.as_bool();
    case Type::Int:
      return v.as_int() == o.as_int() && v.as_int() >= -5 && v.as_int() <= 256;  // CPython's small ints
    default:
      return v.same_identity(o);
  }
}
bool IsFilter(Runtime&, const Value& v, CallArgs&) { return v.is_string() && FindFilter(v.str()) != nullptr; }
bool IsTest(Runtime&, const Value& v, CallArgs&) { return v.is_string() && FindTest(v.str()) != nullptr; }

const TestFn kTests[] = {
    {"!=", Ne},        {"<", Lt},           {"<=", Le},          {"==", Eq},         {">", Gt},
    {">=", Ge},        {"boolean", Boolean}, {"callable", Callable}, {"defined", Defined}, {"divisibleby", DivisibleBy},
    {"eq", Eq},        {"equalto", Eq},     {"escaped", Escaped}, {"even", Even},      {"false", False},
    {"filter", IsFilter}, {"float", Float}, {"ge", Ge},          {"greaterthan", Gt}, {"gt", Gt},
    {"in", In},        {"integer", Integer}, {"iterable", Iterable}, {"le", Le},        {"lessthan", Lt},
    {"lower", Lower},  {"lt", Lt},          {"mapping", Mapping}, {"ne", Ne},          {"none", None},
    {"number", Number}, {"odd", Odd},       {"sameas", SameAs},  {"sequence", Sequence}, {"string", String},
    {"test", IsTest},  {"true", True},      {"undefined", Undefined}, {"upper", Upper},
};

}  // namespace

const TestFn* FindTest(std::string_view name) {
  for (const auto& t : kTests) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

bool IsJinjaTest(std::string_view name) { return FindTest(name) != nullptr; }

}  // namespace triton_studio::chat::detail
