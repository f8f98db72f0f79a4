// The expressions of the interpreter: names, attributes, items and slices, calls, filters and
// tests, and literals; jinja2's getattr/getitem rules. Operators are in operators.cc.
#include "builtins.h"
#include "objects.h"
#include "runtime.h"

namespace triton_studio::chat::detail {

// Describes an expression for "'x' is undefined" messages.
std::string Describe(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Name:
      return e.name;
    case ExprKind::Attr:
      return Describe(*e.a) + "." + e.name;
    case ExprKind::Item:
      return Describe(*e.a) + "[" + (e.b->kind == ExprKind::Const ? Repr(e.b->constant) : "...") + "]";
    case ExprKind::Call:
      return Describe(*e.a) + "(...)";
    default:
      return "value";
  }
}

void Runtime::EvalArgs(const Arguments& a, CallArgs& out) {
  out.positional.reserve(a.positional.size());
  for (const auto& p : a.positional) out.positional.push_back(Eval(*p));
  for (const auto& [k, v] : a.keyword) out.keyword.emplace_back(k, Eval(*v));
}

Value Runtime::EvalFilter(const Expr& e, const Value& subject) {
  CallArgs args;
  EvalArgs(e.args, args);
  line_ = e.line;
  return e.filter->fn(*this, subject, args);
}

Value Runtime::Eval(const Expr& e) {
  Step();
  switch (e.kind) {
    case ExprKind::Const:
      return e.constant;
    case ExprKind::Name:
      return Lookup(e.name);
    case ExprKind::Attr: {
      Value subject = Eval(*e.a);
      if (subject.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
      return GetAttr(subject, e.name, e.line);
    }
    case ExprKind::Item: {
      Value subject = Eval(*e.a);
      if (subject.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
      return GetItem(subject, Eval(*e.b), e.line);
    }
    case ExprKind::Slice:
      return EvalSlice(e);
    case ExprKind::Call:
      return EvalCall(e);
    case ExprKind::Filter:
      return EvalFilter(e, Eval(*e.a));
    case ExprKind::Test: {
      Value subject = Eval(*e.a);
      CallArgs args;
      EvalArgs(e.args, args);
      line_ = e.line;
      bool r = e.test->fn(*this, subject, args);
      return Value::Bool(e.negated ? !r : r);
    }
    case ExprKind::Neg:
    case ExprKind::Pos:
      return EvalUnary(e);
    case ExprKind::Not:
      return Value::Bool(!Truthy(Eval(*e.a)));
    case ExprKind::Binary:
      return EvalBinary(e);
    case ExprKind::Compare:
      return Value::Bool(EvalCompare(e));
    case ExprKind::And: {
      Value l = Eval(*e.a);
      return Truthy(l) ? Eval(*e.b) : l;
    }
    case ExprKind::Or: {
      Value l = Eval(*e.a);
      return Truthy(l) ? l : Eval(*e.b);
    }
    case ExprKind::Cond:
      if (Truthy(Eval(*e.b))) return Eval(*e.a);
      return e.c ? Eval(*e.c) : Value();
    case ExprKind::List:
    case ExprKind::Tuple: {
      std::vector<Value> items;
      items.reserve(e.items.size());
      for (const auto& i : e.items) items.push_back(Eval(*i));
      return Value::List(std::move(items), e.kind == ExprKind::Tuple);
    }
    case ExprKind::Dict:
      return EvalDict(e);
  }
  return Value();
}

// `a[start:stop:step]` on strings, lists and tuples, as Python slices them.
Value Runtime::EvalSlice(const Expr& e) {
  Value subject = Eval(*e.a);
  if (subject.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
  auto bound = [&](const ExprPtr& p) -> std::optional<int64_t> {
    if (!p) return std::nullopt;
    Value v = Eval(*p);
    if (v.is_none()) return std::nullopt;
    if (v.type() != Type::Int && v.type() != Type::Bool) {
      Fail("slice indices must be integers or None", e.line);
    }
    return v.as_int();
  };
  std::optional<int64_t> start = bound(e.b), stop = bound(e.c), step = bound(e.d);
  int64_t st = step.value_or(1);
  if (st == 0) Fail("slice step cannot be zero", e.line);
  std::vector<Value> seq;
  if (subject.is_string()) {
    seq = Iterate(subject);
  } else if (subject.is_list() && !subject.is_generator() && !subject.view()) {
    seq = Iterate(subject);
  } else {
    Fail(std::string("'") + TypeName(subject) + "' object is not subscriptable", e.line);
  }
  int64_t n = static_cast<int64_t>(seq.size());
  auto clamp = [&](std::optional<int64_t> v, int64_t def_pos, int64_t def_neg) {
    if (!v) return st > 0 ? def_pos : def_neg;
    int64_t x = *v;
    if (x < 0) x += n;
    if (st > 0) return std::max<int64_t>(0, std::min(x, n));
    return std::max<int64_t>(-1, std::min(x, n - 1));
  };
  int64_t lo = clamp(start, 0, n - 1), hi = clamp(stop, n, -1);
  std::vector<Value> picked;
  for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st) picked.push_back(seq[i]);
  if (subject.is_string()) {
    std::string s;
    for (const auto& v : picked) s += v.str();
    return Value::String(std::move(s));
  }
  return Value::List(std::move(picked), subject.is_tuple());
}

// `{'k': v}`: string keys only (the value model's dicts are JSON objects).
Value Runtime::EvalDict(const Expr& e) {
  auto d = std::make_shared<DictObject>();
  for (size_t i = 0; i < e.items.size(); ++i) {
    Value k = Eval(*e.items[i]);
    if (!k.is_string()) {
      throw UnsupportedConstructError("dict literal with a non-string key (" + Repr(k) + ")", e.line, e.column);
    }
    d->Set(k.str(), Eval(*e.values[i]));
  }
  return Value::Dict(std::move(d));
}

Value Runtime::EvalCall(const Expr& e) {
  if (e.a->kind == ExprKind::Attr) {
    Value subject = Eval(*e.a->a);
    if (subject.is_undefined()) Fail("'" + Describe(*e.a->a) + "' is undefined", e.line);
    const std::string& name = e.a->name;
    CallArgs args;
    EvalArgs(e.args, args);
    line_ = e.line;
    if (subject.is_string() || subject.is_list() || subject.is_dict()) {
      MethodKind kind = LookupMethod(subject, name);
      if (kind != MethodKind::None) return CallMethod(*this, subject, name, args, e.line);
    } else if (subject.type() == Type::Object) {
      if (auto r = subject.object()->CallMethod(*this, name, args, e.line)) return *r;
    }
    Value callee = GetAttr(subject, name, e.line);
    if (callee.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
    return CallValue(callee, args, e.line);
  }
  Value callee = Eval(*e.a);
  if (callee.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
  CallArgs args;
  EvalArgs(e.args, args);
  line_ = e.line;
  return CallValue(callee, args, e.line);
}

Value Runtime::CallValue(const Value& callee, CallArgs& args, int line) {
  if (callee.type() == Type::Object && callee.object()->Callable()) {
    if (++depth_ > options_.limits.max_recursion_depth) {
      throw RenderLimitError("render stopped: calls nested deeper than max_recursion_depth (" +
                             std::to_string(options_.limits.max_recursion_depth) + ")");
    }
    struct DepthGuard {
      size_t& d;
      ~DepthGuard() { --d; }
    } guard{depth_};
    return callee.object()->Call(*this, args, line);
  }
  if (callee.is_undefined()) Fail("undefined value is not callable", line);
  Fail(std::string("'") + TypeName(callee) + "' object is not callable", line);
}

Value Runtime::GetAttr(const Value& subject, std::string_view name, int line) {
  if (subject.is_undefined()) Fail("undefined value has no attribute '" + std::string(name) + "'", line);
  if (!name.empty() && name[0] == '_') return Value();  // the sandbox hides private attributes
  switch (subject.type()) {
    case Type::Dict: {
      MethodKind kind = LookupMethod(subject, name);
      if (kind != MethodKind::None) return BoundMethod(subject, name);
      if (auto v = subject.get(name)) return *v;
      return Value();
    }
    case Type::String:
    case Type::List:
      if (LookupMethod(subject, name) != MethodKind::None) return BoundMethod(subject, name);
      return Value();
    case Type::Object:
      if (auto v = subject.object()->GetAttr(name)) return *v;
      return Value();
    case Type::Bool:
    case Type::Int:
    case Type::Float:
      // Python numbers' own attributes (methods such as bit_length are not implemented).
      if (name == "real") return subject.type() == Type::Float ? subject : Value::Int(subject.as_int());
      if (name == "imag") return subject.type() == Type::Float ? Value::Float(0.0) : Value::Int(0);
      return Value();
    default:
      return Value();
  }
}

Value Runtime::GetItem(const Value& subject, const Value& key, int line) {
  if (subject.is_undefined()) Fail("undefined value has no item " + Repr(key), line);
  switch (subject.type()) {
    case Type::Dict:
      if (key.is_string()) {
        if (auto v = subject.get(key.str())) return *v;
        return GetAttr(subject, key.str(), line);
      }
      return Value();
    case Type::List:
    case Type::String:
      if ((subject.is_generator() || subject.view()) && (key.type() == Type::Int || key.type() == Type::Bool)) {
        Fail(std::string("'") + TypeName(subject) + "' object is not subscriptable", line);
      }
      if (key.type() == Type::Int || key.type() == Type::Bool) {
        if (subject.is_string()) {
          std::vector<Value> chars = Iterate(subject);
          int64_t i = key.as_int();
          if (i < 0) i += static_cast<int64_t>(chars.size());
          if (i < 0 || i >= static_cast<int64_t>(chars.size())) return Value();
          return chars[i];
        }
        int64_t i = key.as_int();
        if (i < 0) i += static_cast<int64_t>(subject.size());
        if (i < 0 || i >= static_cast<int64_t>(subject.size())) return Value();
        return subject.at(static_cast<size_t>(i));
      }
      if (key.is_string()) return GetAttr(subject, key.str(), line);
      return Value();
    case Type::Object:
      if (key.is_string()) return GetAttr(subject, key.str(), line);
      return Value();
    default:
      return Value();
  }
}

Value Runtime::ApplyFilterByName(std::string_view name, const Value& subject, CallArgs& args, int line) {
  const FilterFn* f = FindFilter(name);
  if (!f) {
    if (IsJinjaFilter(name)) throw UnsupportedConstructError("filter '" + std::string(name) + "'", line, 0);
    Fail("No filter named '" + std::string(name) + "'.", line);
  }
  return f->fn(*this, subject, args);
}

bool Runtime::ApplyTestByName(std::string_view name, const Value& subject, CallArgs& args, int line) {
  const TestFn* t = FindTest(name);
  if (!t) {
    if (IsJinjaTest(name)) throw UnsupportedConstructError("test '" + std::string(name) + "'", line, 0);
    Fail("No test named '" + std::string(name) + "'.", line);
  }
  return t->fn(*this, subject, args);
}

}  // namespace triton_studio::chat::detail
