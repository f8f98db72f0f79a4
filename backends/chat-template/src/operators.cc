// Python's operators as the interpreter applies them: arithmetic (64-bit ints that stop rather
// than wrap), string and list concatenation and repetition, comparisons and `in`.
#include <cmath>

#include "builtins.h"
#include "runtime.h"

namespace triton_studio::chat::detail {

namespace {

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

// Unary `-` and `+`.
Value Runtime::EvalUnary(const Expr& e) {
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
  return Arithmetic(e.bin_op, l, r, e.line);
}

void Runtime::OperandTypeError(BinOp op, const Value& l, const Value& r, int line) const {
  static const char* kSym[] = {"+", "-", "*", "/", "//", "%", "**", "~"};
  Fail(std::string("unsupported operand type(s) for ") + kSym[static_cast<int>(op)] + ": '" + TypeName(l) +
           "' and '" + TypeName(r) + "'",
       line);
}

Value Runtime::Arithmetic(BinOp op, const Value& l, const Value& r, int line) {
  bool nums = l.is_number() && r.is_number();
  bool floats = nums && (l.type() == Type::Float || r.type() == Type::Float);
  switch (op) {
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
        Fail(std::string("can only concatenate str (not \"") + TypeName(l.is_string() ? r : l) + "\") to str", line);
      }
      break;
    case BinOp::Sub:
      if (nums) return floats ? Value::Float(l.as_double() - r.as_double()) : Value::Int(SubInt(l.as_int(), r.as_int()));
      break;
    case BinOp::Mul:
      return Multiply(l, r, line);
    case BinOp::Div:
      if (nums) {
        if (r.as_double() == 0) Fail("division by zero", line);
        return Value::Float(l.as_double() / r.as_double());
      }
      break;
    case BinOp::FloorDiv:
      if (nums) {
        if (r.as_double() == 0) Fail("integer division or modulo by zero", line);
        if (floats) return Value::Float(std::floor(l.as_double() / r.as_double()));
        return Value::Int(FloorDiv(l.as_int(), r.as_int()));
      }
      break;
    case BinOp::Mod:
      if (l.is_string()) return Value::String(PercentFormat(l.str(), r));
      if (nums) {
        if (r.as_double() == 0) Fail("integer division or modulo by zero", line);
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
      break;
    case BinOp::Pow:
      return Power(l, r, line);
    default:
      break;
  }
  OperandTypeError(op, l, r, line);
}

// `*`: numbers, and a string or list repeated an int number of times.
Value Runtime::Multiply(const Value& l, const Value& r, int line) {
  bool nums = l.is_number() && r.is_number();
  bool floats = nums && (l.type() == Type::Float || r.type() == Type::Float);
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
  OperandTypeError(BinOp::Mul, l, r, line);
}

// `**`: exact for a non-negative int exponent, a float otherwise.
Value Runtime::Power(const Value& l, const Value& r, int line) {
  if (!l.is_number() || !r.is_number()) OperandTypeError(BinOp::Pow, l, r, line);
  bool floats = l.type() == Type::Float || r.type() == Type::Float;
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
}  // namespace triton_studio::chat::detail
