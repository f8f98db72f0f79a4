// The interpreter (see runtime.h): jinja2's scoping (a fresh scope per loop iteration, macros see
// their defining scope), Python operators, jinja2's Undefined, and the render limits.
#include "runtime.h"

#include <cmath>

#include "builtins.h"
#include "objects.h"
#include "utf8.h"

namespace triton_studio::chat::detail {

struct Frame {
  std::vector<std::pair<std::string_view, Value>> vars;
  int parent;
  int previous;
};

namespace {

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

// Python ints have no bound; past 64 bits the engine stops rather than wrap.
[[noreturn]] void BigInt() { throw UnsupportedConstructError("integers beyond 64 bits", 0, 0); }
int64_t AddInt(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) BigInt();
  return r;
}
int64_t SubInt(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) BigInt();
  return r;
}
int64_t MulInt(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) BigInt();
  return r;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  if (a == INT64_MIN && b == -1) BigInt();
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Runtime::Runtime(const ChatTemplateOptions& options, std::string& out) : options_(options), out_(&out) {
  frames_.reserve(16);
  frames_.push_back(Frame{{}, -1, -1});
  current_ = 0;
}

Runtime::~Runtime() = default;

void Runtime::SetVariable(std::string_view name, Value value) {
  auto& vars = frames_[0].vars;
  for (auto& [k, v] : vars) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  vars.emplace_back(name, std::move(value));
}

void Runtime::Render(const Template& tmpl) {
  try {
    Exec(tmpl.body);
  } catch (const ValueError& e) {
    Fail(e.what(), line_);
  }
}

void Runtime::Fail(const std::string& message, int line) const { throw TemplateRuntimeError(message, line); }

void Runtime::Step() {
  if (++steps_ > options_.limits.max_steps) {
    throw RenderLimitError("render stopped: more than max_steps (" + std::to_string(options_.limits.max_steps) +
                           ") evaluation steps; the template loops too long for its input");
  }
}

void Runtime::CheckOutput(size_t size) const {
  if (size > options_.limits.max_output_bytes) {
    throw RenderLimitError("render stopped: output exceeds max_output_bytes (" +
                           std::to_string(options_.limits.max_output_bytes) + ")");
  }
}

void Runtime::PushFrame(int parent) {
  frames_.push_back(Frame{{}, parent, current_});
  current_ = static_cast<int>(frames_.size()) - 1;
}

void Runtime::PopFrame() {
  current_ = frames_.back().previous;
  frames_.pop_back();
}

Value Runtime::Lookup(std::string_view name) {
  for (int f = current_; f >= 0; f = frames_[f].parent) {
    for (auto it = frames_[f].vars.rbegin(); it != frames_[f].vars.rend(); ++it) {
      if (it->first == name) return it->second;
    }
  }
  if (auto g = FindGlobal(name)) return *g;
  return Value();
}

void Runtime::Assign(std::string_view name, Value value) {
  auto& vars = frames_[current_].vars;
  for (auto& [k, v] : vars) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  vars.emplace_back(name, std::move(value));
}

std::string Runtime::Capture(const Body& body) {
  std::string captured;
  std::string* saved = out_;
  out_ = &captured;
  try {
    Exec(body);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return captured;
}

Runtime::Flow Runtime::Exec(const Body& body) {
  for (const auto& s : body) {
    Flow f = ExecStmt(*s);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Runtime::Flow Runtime::ExecStmt(const Stmt& s) {
  Step();
  line_ = s.line;
  switch (s.kind) {
    case StmtKind::Output:
      out_->append(s.text);
      CheckOutput(out_->size());
      return Flow::Normal;
    case StmtKind::Print: {
      Value v = Eval(*s.expr);
      AppendStr(*out_, v);
      CheckOutput(out_->size());
      return Flow::Normal;
    }
    case StmtKind::If:
      for (const auto& [cond, body] : s.branches) {
        if (Truthy(Eval(*cond))) return Exec(body);
      }
      return Exec(s.body);
    case StmtKind::For: {
      Value iterable = Eval(*s.expr);
      ExecFor(s, iterable, 0);
      return Flow::Normal;
    }
    case StmtKind::Set: {
      Value v = Eval(*s.expr);
      line_ = s.line;
      if (!s.target_object.empty()) {
        Value obj = Lookup(s.target_object);
        auto* ns = obj.type() == Type::Object ? dynamic_cast<NamespaceObject*>(obj.object()) : nullptr;
        if (!ns) Fail("cannot assign attribute on non-namespace object", s.line);
        if (!s.name.empty() && s.name[0] == '_') {
          Fail("Chat templates cannot store underscore-prefixed attributes on a namespace, but got '" + s.name + "'",
               s.line);
        }
        ns->attrs.Set(s.name, std::move(v));
      } else if (s.targets.size() == 1) {
        Assign(s.targets[0], std::move(v));
      } else {
        std::vector<Value> parts = Iterate(v);
        if (parts.size() != s.targets.size()) {
          Fail(parts.size() > s.targets.size() ? "too many values to unpack" : "not enough values to unpack", s.line);
        }
        for (size_t i = 0; i < parts.size(); ++i) Assign(s.targets[i], parts[i]);
      }
      return Flow::Normal;
    }
    case StmtKind::SetBlock: {
      Value v = Value::String(Capture(s.body));
      for (const auto& f : s.filters) v = EvalFilter(*f, v);
      Assign(s.targets[0], std::move(v));
      return Flow::Normal;
    }
    case StmtKind::Macro: {
      auto m = std::make_shared<MacroObject>();
      m->name = s.name;
      m->params = &s.params;
      m->body = &s.body;
      m->def_frame = current_;
      Assign(s.name, Value::Obj(std::move(m)));
      return Flow::Normal;
    }
    case StmtKind::CallBlock: {
      auto caller = std::make_shared<MacroObject>();
      caller->name = "caller";
      caller->params = &s.params;
      caller->body = &s.body;
      caller->def_frame = current_;
      caller->is_caller = true;
      const Expr& call = *s.expr;
      CallArgs args;
      EvalArgs(call.args, args);
      args.keyword.emplace_back("caller", Value::Obj(std::move(caller)));
      Value callee = Eval(*call.a);
      Value result = CallValue(callee, args, s.line);
      AppendStr(*out_, result);
      CheckOutput(out_->size());
      return Flow::Normal;
    }
    case StmtKind::FilterBlock: {
      Value v = Value::String(Capture(s.body));
      for (const auto& f : s.filters) v = EvalFilter(*f, v);
      AppendStr(*out_, v);
      CheckOutput(out_->size());
      return Flow::Normal;
    }
    case StmtKind::With: {
      std::vector<Value> values;
      for (const auto& [name, expr] : s.assignments) values.push_back(Eval(*expr));
      PushFrame(current_);
      for (size_t i = 0; i < values.size(); ++i) Assign(s.assignments[i].first, values[i]);
      Flow f;
      try {
        f = Exec(s.body);
      } catch (...) {
        PopFrame();
        throw;
      }
      PopFrame();
      return f;
    }
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
  }
  return Flow::Normal;
}

void Runtime::ExecFor(const Stmt& s, const Value& iterable, int depth) {
  if (iterable.is_none() || (!iterable.is_undefined() && !iterable.is_list() && !iterable.is_dict() &&
                             !iterable.is_string() && iterable.type() != Type::Object)) {
    Fail(std::string("'") + TypeName(iterable) + "' object is not iterable", s.line);
  }
  if (iterable.type() == Type::Object) Fail(std::string("'") + TypeName(iterable) + "' object is not iterable", s.line);
  std::vector<Value> items = Iterate(iterable);
  auto bind = [&](const Value& item) {
    if (s.targets.size() == 1) {
      Assign(s.targets[0], item);
      return;
    }
    std::vector<Value> parts = Iterate(item);
    if (parts.size() != s.targets.size()) {
      Fail(parts.size() > s.targets.size() ? "too many values to unpack (expected " +
                                                 std::to_string(s.targets.size()) + ")"
                                           : "not enough values to unpack (expected " +
                                                 std::to_string(s.targets.size()) + ", got " +
                                                 std::to_string(parts.size()) + ")",
           s.line);
    }
    for (size_t i = 0; i < parts.size(); ++i) Assign(s.targets[i], parts[i]);
  };
  if (s.loop_filter) {
    std::vector<Value> kept;
    for (const auto& item : items) {
      PushFrame(current_);
      try {
        bind(item);
        if (Truthy(Eval(*s.loop_filter))) kept.push_back(item);
      } catch (...) {
        PopFrame();
        throw;
      }
      PopFrame();
    }
    items = std::move(kept);
  }
  if (items.empty()) {
    Exec(s.else_body);
    return;
  }
  auto loop = std::make_shared<LoopObject>();
  loop->items = std::move(items);
  loop->depth0 = depth;
  loop->stmt = &s;
  Value loop_value = Value::Obj(loop);
  for (size_t i = 0; i < loop->items.size(); ++i) {
    Step();
    loop->index0 = i;
    PushFrame(current_);
    Flow f;
    try {
      Assign("loop", loop_value);
      bind(loop->items[i]);
      f = Exec(s.body);
    } catch (...) {
      PopFrame();
      throw;
    }
    PopFrame();
    if (f == Flow::Break) break;
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
    case ExprKind::Slice: {
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
    case ExprKind::Pos: {
      Value v = Eval(*e.a);
      if (v.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
      if (!v.is_number()) {
        Fail(std::string("bad operand type for unary ") + (e.kind == ExprKind::Neg ? "-" : "+") + ": '" +
                 TypeName(v) + "'",
             e.line);
      }
      if (e.kind == ExprKind::Pos) return v.type() == Type::Bool ? Value::Int(v.as_int()) : v;
      if (v.type() == Type::Float) return Value::Float(-v.as_double());
      return Value::Int(SubInt(0, v.as_int()));
    }
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
    case ExprKind::Dict: {
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
  }
  return Value();
}

Value Runtime::EvalBinary(const Expr& e) {
  Value l = Eval(*e.a);
  Value r = Eval(*e.b);
  line_ = e.line;
  if (e.bin_op == BinOp::Concat) {
    std::string s = ToStr(l);
    AppendStr(s, r);
    CheckOutput(s.size());
    return Value::String(std::move(s));
  }
  // str % undefined formats (Undefined is mapping-like to CPython): '%s' gives ''.
  if (e.bin_op == BinOp::Mod && l.is_string() && r.is_undefined()) return Value::String(PercentFormat(l.str(), r));
  if (l.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
  if (r.is_undefined()) Fail("'" + Describe(*e.b) + "' is undefined", e.line);
  static const char* kSym[] = {"+", "-", "*", "/", "//", "%", "**", "~"};
  auto type_error = [&]() {
    Fail(std::string("unsupported operand type(s) for ") + kSym[static_cast<int>(e.bin_op)] + ": '" + TypeName(l) +
             "' and '" + TypeName(r) + "'",
         e.line);
  };
  bool nums = l.is_number() && r.is_number();
  bool floats = nums && (l.type() == Type::Float || r.type() == Type::Float);
  switch (e.bin_op) {
    case BinOp::Add:
      if (nums) return floats ? Value::Float(l.as_double() + r.as_double()) : Value::Int(AddInt(l.as_int(), r.as_int()));
      if (l.is_string() && r.is_string()) {
        std::string s(l.str());
        s += r.str();
        CheckOutput(s.size());
        return Value::String(std::move(s));
      }
      if (l.is_list() && r.is_list() && l.is_tuple() == r.is_tuple()) {
        std::vector<Value> items = Iterate(l);
        for (auto& v : Iterate(r)) items.push_back(std::move(v));
        return Value::List(std::move(items), l.is_tuple());
      }
      if (l.is_string() || r.is_string()) {
        Fail(std::string("can only concatenate str (not \"") + TypeName(l.is_string() ? r : l) + "\") to str", e.line);
      }
      type_error();  // throws
      break;
    case BinOp::Sub:
      if (nums) return floats ? Value::Float(l.as_double() - r.as_double()) : Value::Int(SubInt(l.as_int(), r.as_int()));
      type_error();  // throws
      break;
    case BinOp::Mul: {
      if (nums) return floats ? Value::Float(l.as_double() * r.as_double()) : Value::Int(MulInt(l.as_int(), r.as_int()));
      const Value* seq = l.is_string() || l.is_list() ? &l : &r;
      const Value* count = seq == &l ? &r : &l;
      if ((seq->is_string() || seq->is_list()) && (count->type() == Type::Int || count->type() == Type::Bool)) {
        int64_t n = std::max<int64_t>(0, count->as_int());
        if (seq->is_string()) {
          if (n > 0 && seq->str().size() > options_.limits.max_output_bytes / static_cast<size_t>(n)) CheckOutput(SIZE_MAX);
          std::string s;
          for (int64_t i = 0; i < n; ++i) s += seq->str();
          return Value::String(std::move(s));
        }
        std::vector<Value> base = Iterate(*seq), items;
        for (int64_t i = 0; i < n; ++i) {
          Step();
          items.insert(items.end(), base.begin(), base.end());
        }
        return Value::List(std::move(items), seq->is_tuple());
      }
      type_error();  // throws
      break;
    }
    case BinOp::Div:
      if (nums) {
        if (r.as_double() == 0) Fail("division by zero", e.line);
        return Value::Float(l.as_double() / r.as_double());
      }
      type_error();  // throws
      break;
    case BinOp::FloorDiv:
      if (nums) {
        if (r.as_double() == 0) Fail("integer division or modulo by zero", e.line);
        if (floats) return Value::Float(std::floor(l.as_double() / r.as_double()));
        return Value::Int(FloorDiv(l.as_int(), r.as_int()));
      }
      type_error();  // throws
      break;
    case BinOp::Mod:
      if (l.is_string()) return Value::String(PercentFormat(l.str(), r));
      if (nums) {
        if (r.as_double() == 0) Fail("integer division or modulo by zero", e.line);
        if (floats) {
          double a = l.as_double(), b = r.as_double();
          double m = std::fmod(a, b);
          if (m != 0 && ((m < 0) != (b < 0))) m += b;
          return Value::Float(m);
        }
        int64_t a = l.as_int(), b = r.as_int();
        if (b == -1) return Value::Int(0);
        return Value::Int(a - b * FloorDiv(a, b));
      }
      type_error();  // throws
      break;
    case BinOp::Pow:
      if (nums) {
        if (!floats && r.as_int() >= 0) {
          int64_t result = 1, base = l.as_int(), e = r.as_int();
          while (e > 0) {  // by squaring; a square is taken only when a higher bit still needs it
            Step();
            if (e & 1) result = MulInt(result, base);
            e >>= 1;
            if (e) base = MulInt(base, base);
          }
          return Value::Int(result);
        }
        return Value::Float(std::pow(l.as_double(), r.as_double()));
      }
      type_error();  // throws
      break;
    default:
      type_error();  // throws
      break;
  }
  return Value();
}

namespace {

bool Contains(const Value& container, const Value& item) {
  switch (container.type()) {
    case Type::Undefined:
      return false;
    case Type::String:
      if (!item.is_string()) {
        throw ValueError(std::string("'in <string>' requires string as left operand, not ") + TypeName(item));
      }
      return container.str().find(item.str()) != std::string_view::npos;
    case Type::List:
      if (container.is_generator()) {  // `in` consumes a generator up to the match
        const ListObject* g = ValueAccess::list(container);
        while (g->consumed < g->items.size()) {
          if (Equal(g->items[g->consumed++], item)) return true;
        }
        return false;
      }
      for (size_t i = 0; i < container.size(); ++i) {
        if (Equal(container.at(i), item)) return true;
      }
      return false;
    case Type::Dict:
      if (item.is_list() || item.is_dict()) throw ValueError(std::string("unhashable type: '") + TypeName(item) + "'");
      return item.is_string() && container.get(item.str()).has_value();
    default:
      throw ValueError(std::string("argument of type '") + TypeName(container) + "' is not iterable");
  }
}

}  // namespace

bool Runtime::EvalCompare(const Expr& e) {
  Value left = Eval(*e.a);
  for (const auto& [op, expr] : e.comparisons) {
    Value right = Eval(*expr);
    line_ = e.line;
    bool r;
    switch (op) {
      case CmpOp::Eq:
        r = Equal(left, right);
        break;
      case CmpOp::Ne:
        r = !Equal(left, right);
        break;
      case CmpOp::In:
        r = Contains(right, left);
        break;
      case CmpOp::NotIn:
        r = !Contains(right, left);
        break;
      default: {
        if (left.is_undefined()) Fail("'" + Describe(*e.a) + "' is undefined", e.line);
        if (right.is_undefined()) Fail("'" + Describe(*expr) + "' is undefined", e.line);
        if (op == CmpOp::Lt) r = Less(left, right);
        else if (op == CmpOp::Gt) r = Less(right, left);
        else if (op == CmpOp::Le) r = Less(left, right) || Equal(left, right);
        else r = Less(right, left) || Equal(left, right);
      }
    }
    if (!r) return false;
    left = std::move(right);
  }
  return true;
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

void Runtime::RunMacro(const MacroObject& macro, CallArgs& args, std::string& out, int line) {
  const auto& params = *macro.params;
  std::vector<Value> values(params.size());
  std::vector<bool> given(params.size(), false);
  std::vector<Value> varargs;
  auto kwargs = std::make_shared<DictObject>();
  Value caller;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (i < params.size()) {
      values[i] = args.positional[i];
      given[i] = true;
    } else {
      varargs.push_back(args.positional[i]);
    }
  }
  for (auto& [k, v] : args.keyword) {
    if (k == "caller" && !macro.is_caller) {
      caller = v;
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].first == k) {
        if (given[i]) Fail("macro '" + macro.name + "' got multiple values for argument '" + k + "'", line);
        values[i] = v;
        given[i] = true;
        found = true;
      }
    }
    if (!found) kwargs->Set(k, v);
  }
  std::string* saved = out_;
  out_ = &out;
  PushFrame(macro.def_frame < static_cast<int>(frames_.size()) ? macro.def_frame : 0);
  try {
    for (size_t i = 0; i < params.size(); ++i) {
      if (!given[i] && params[i].second) values[i] = Eval(*params[i].second);
      Assign(params[i].first, values[i]);
    }
    Assign("varargs", Value::List(std::move(varargs), /*tuple=*/true));
    Assign("kwargs", Value::Dict(kwargs));
    if (!caller.is_undefined()) Assign("caller", caller);
    Exec(*macro.body);
  } catch (...) {
    PopFrame();
    out_ = saved;
    throw;
  }
  PopFrame();
  out_ = saved;
}

Value MacroObject::Call(Runtime& rt, CallArgs& args, int line) {
  std::string out;
  rt.RunMacro(*this, args, out, line);
  return Value::String(std::move(out));
}

std::optional<Value> LoopObject::GetAttr(std::string_view name) const {
  size_t n = items.size();
  if (name == "index") return Value::Int(static_cast<int64_t>(index0 + 1));
  if (name == "index0") return Value::Int(static_cast<int64_t>(index0));
  if (name == "first") return Value::Bool(index0 == 0);
  if (name == "last") return Value::Bool(index0 + 1 == n);
  if (name == "length") return Value::Int(static_cast<int64_t>(n));
  if (name == "revindex") return Value::Int(static_cast<int64_t>(n - index0));
  if (name == "revindex0") return Value::Int(static_cast<int64_t>(n - index0 - 1));
  if (name == "depth") return Value::Int(static_cast<int64_t>(depth0 + 1));
  if (name == "depth0") return Value::Int(static_cast<int64_t>(depth0));
  if (name == "previtem") return index0 > 0 ? items[index0 - 1] : Value();
  if (name == "nextitem") return index0 + 1 < n ? items[index0 + 1] : Value();
  return std::nullopt;
}

Value LoopObject::Call(Runtime& rt, CallArgs& args, int line) {
  if (args.positional.size() != 1) throw ValueError("loop() takes exactly one argument");
  std::string out;
  std::string* saved = rt.out_;
  rt.out_ = &out;
  try {
    rt.ExecFor(*stmt, args.positional[0], static_cast<int>(depth0 + 1));
  } catch (...) {
    rt.out_ = saved;
    throw;
  }
  rt.out_ = saved;
  (void)line;
  return Value::String(std::move(out));
}

std::optional<Value> LoopObject::CallMethod(Runtime&, std::string_view name, CallArgs& args, int) {
  if (name == "cycle") {
    if (args.positional.empty()) throw ValueError("no items for cycling given");
    return args.positional[index0 % args.positional.size()];
  }
  if (name == "changed") {
    Value current = Value::List(args.positional);
    bool changed = !changed_seen || !Equal(current, last_changed);
    changed_seen = true;
    last_changed = current;
    return Value::Bool(changed);
  }
  return std::nullopt;
}

std::optional<Value> NamespaceObject::GetAttr(std::string_view name) const {
  if (const Value* v = attrs.Find(name)) return *v;
  return std::nullopt;
}

std::string NamespaceObject::Repr() const {
  auto d = std::make_shared<DictObject>(attrs);
  return "<Namespace " + ::triton_studio::chat::detail::Repr(Value::Dict(d)) + ">";
}

}  // namespace triton_studio::chat::detail
