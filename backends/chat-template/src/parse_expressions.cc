// jinja2's expressions by operator precedence (or < and < not < comparisons < + - < ~ <
// * / // % < ** < unary < filters/tests < postfix), literals, calls, subscripts and filters.
#include <cerrno>
#include <cstdlib>

#include "builtins.h"
#include "jinja_parser.h"

namespace triton_studio::chat::detail {

ExprPtr Parser::ParseTuple(bool with_condexpr_default, const std::set<std::string>& extra_end, bool with_condexpr) {
  (void)with_condexpr_default;
  const Token start = Cur();
  std::vector<ExprPtr> items;
  bool is_tuple = false;
  while (true) {
    if (!items.empty()) {
      if (!SkipOp(",")) break;
      is_tuple = true;
    }
    if (TupleEnds(extra_end)) break;
    items.push_back(ParseExpression(with_condexpr));
  }
  if (!is_tuple) {
    if (items.empty()) Fail("expected an expression, got '" + Describe(Cur()) + "'");
    return std::move(items[0]);
  }
  auto e = Make(ExprKind::Tuple, start);
  e->items = std::move(items);
  return e;
}

bool Parser::TupleEnds(const std::set<std::string>& extra_end) const {
  const Token& t = Cur();
  if (t.kind == Tok::VarEnd || t.kind == Tok::BlockEnd || t.kind == Tok::Eof) return true;
  if (t.kind == Tok::Op && (t.value == ")" || t.value == "]" || t.value == "}")) return true;
  return t.kind == Tok::Name && extra_end.count(t.value) > 0;
}

ExprPtr Parser::ParseExpression(bool with_condexpr) {
  DepthGuard guard(*this);
  if (!with_condexpr) return ParseOr();
  const Token start = Cur();
  ExprPtr expr = ParseOr();
  while (IsName("if")) {
    Next();
    auto e = Make(ExprKind::Cond, start);
    e->a = std::move(expr);
    e->b = ParseOr();
    if (SkipName("else")) e->c = ParseExpression(true);
    expr = std::move(e);
  }
  return expr;
}

ExprPtr Parser::ParseOr() {
  ExprPtr left = ParseAnd();
  while (IsName("or")) {
    const Token at = Cur();
    Next();
    auto e = Make(ExprKind::Or, at);
    e->a = std::move(left);
    e->b = ParseAnd();
    left = std::move(e);
  }
  return left;
}

ExprPtr Parser::ParseAnd() {
  ExprPtr left = ParseNot();
  while (IsName("and")) {
    const Token at = Cur();
    Next();
    auto e = Make(ExprKind::And, at);
    e->a = std::move(left);
    e->b = ParseNot();
    left = std::move(e);
  }
  return left;
}

ExprPtr Parser::ParseNot() {
  if (IsName("not")) {
    const Token at = Cur();
    Next();
    auto e = Make(ExprKind::Not, at);
    e->a = ParseNot();
    return e;
  }
  return ParseCompare();
}

ExprPtr Parser::ParseCompare() {
  const Token start = Cur();
  ExprPtr left = ParseMath1();
  std::vector<std::pair<CmpOp, ExprPtr>> ops;
  while (true) {
    CmpOp op;
    if (IsOp("==")) op = CmpOp::Eq;
    else if (IsOp("!=")) op = CmpOp::Ne;
    else if (IsOp("<")) op = CmpOp::Lt;
    else if (IsOp("<=")) op = CmpOp::Le;
    else if (IsOp(">")) op = CmpOp::Gt;
    else if (IsOp(">=")) op = CmpOp::Ge;
    else if (IsName("in")) op = CmpOp::In;
    else if (IsName("not") && Peek().kind == Tok::Name && Peek().value == "in") {
      Next();
      op = CmpOp::NotIn;
    } else {
      break;
    }
    Next();
    ops.emplace_back(op, ParseMath1());
  }
  if (ops.empty()) return left;
  auto e = Make(ExprKind::Compare, start);
  e->a = std::move(left);
  e->comparisons = std::move(ops);
  return e;
}

ExprPtr Parser::Binary(BinOp op, ExprPtr l, ExprPtr r, const Token& at) {
  auto e = Make(ExprKind::Binary, at);
  e->bin_op = op;
  e->a = std::move(l);
  e->b = std::move(r);
  return e;
}

ExprPtr Parser::ParseMath1() {
  ExprPtr left = ParseConcat();
  while (IsOp("+") || IsOp("-")) {
    const Token at = Cur();
    Next();
    left = Binary(at.value == "+" ? BinOp::Add : BinOp::Sub, std::move(left), ParseConcat(), at);
  }
  return left;
}

ExprPtr Parser::ParseConcat() {
  ExprPtr left = ParseMath2();
  while (IsOp("~")) {
    const Token at = Cur();
    Next();
    left = Binary(BinOp::Concat, std::move(left), ParseMath2(), at);
  }
  return left;
}

ExprPtr Parser::ParseMath2() {
  ExprPtr left = ParsePow();
  while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
    const Token at = Cur();
    Next();
    BinOp op = at.value == "*" ? BinOp::Mul : at.value == "/" ? BinOp::Div : at.value == "//" ? BinOp::FloorDiv : BinOp::Mod;
    left = Binary(op, std::move(left), ParsePow(), at);
  }
  return left;
}

ExprPtr Parser::ParsePow() {
  ExprPtr left = ParseUnary(true);
  while (IsOp("**")) {
    const Token at = Cur();
    Next();
    left = Binary(BinOp::Pow, std::move(left), ParseUnary(true), at);
  }
  return left;
}

ExprPtr Parser::ParseUnary(bool with_filter) {
  DepthGuard guard(*this);
  const Token at = Cur();
  ExprPtr node;
  if (IsOp("-") || IsOp("+")) {
    Next();
    node = Make(at.value == "-" ? ExprKind::Neg : ExprKind::Pos, at);
    node->a = ParseUnary(false);
  } else {
    node = ParsePostfix(ParsePrimary());
  }
  if (with_filter) node = ParseFilterExpr(std::move(node));
  return node;
}

ExprPtr Parser::ParsePrimary() {
  const Token t = Cur();
  switch (t.kind) {
    case Tok::Name: {
      Next();
      auto e = Make(ExprKind::Const, t);
      if (t.value == "true" || t.value == "True") e->constant = Value::Bool(true);
      else if (t.value == "false" || t.value == "False") e->constant = Value::Bool(false);
      else if (t.value == "none" || t.value == "None") e->constant = Value::None();
      else {
        e->kind = ExprKind::Name;
        e->name = t.value;
      }
      return e;
    }
    case Tok::String: {
      std::string s;
      while (Cur().kind == Tok::String) {
        s += Cur().value;
        Next();
      }
      auto e = Make(ExprKind::Const, t);
      e->constant = Value::String(std::move(s));
      return e;
    }
    case Tok::Int: {
      Next();
      auto e = Make(ExprKind::Const, t);
      errno = 0;
      long long v = std::strtoll(t.value.c_str(), nullptr, 10);
      if (errno == ERANGE) throw UnsupportedConstructError("integers beyond 64 bits (" + t.value + ")", t.line, t.column);
      e->constant = Value::Int(v);
      return e;
    }
    case Tok::Float: {
      Next();
      auto e = Make(ExprKind::Const, t);
      e->constant = Value::Float(std::strtod(t.value.c_str(), nullptr));
      return e;
    }
    case Tok::Op:
      if (t.value == "(" || t.value == "[" || t.value == "{") return ParseBracketed(t);
      break;
    default:
      break;
  }
  Fail("unexpected '" + Describe(t) + "'");
}

// `( )`, `(expr)` and tuples, list literals and dict literals; `t` is the opening bracket.
ExprPtr Parser::ParseBracketed(const Token& t) {
  if (t.value == "(") {
    Next();
    if (SkipOp(")")) {
      auto e = Make(ExprKind::Tuple, t);
      return e;
    }
    ExprPtr inner = ParseTuple(true, {});
    ExpectOp(")");
    return inner;
  }
  if (t.value == "[") {
    Next();
    auto e = Make(ExprKind::List, t);
    while (!IsOp("]")) {
      if (!e->items.empty()) ExpectOp(",");
      if (IsOp("]")) break;
      e->items.push_back(ParseExpression(true));
    }
    Next();
    return e;
  }
  if (t.value == "{") {
    Next();
    auto e = Make(ExprKind::Dict, t);
    while (!IsOp("}")) {
      if (!e->items.empty()) ExpectOp(",");
      if (IsOp("}")) break;
      e->items.push_back(ParseExpression(true));
      ExpectOp(":");
      e->values.push_back(ParseExpression(true));
    }
    Next();
    return e;
  }
  Fail("unexpected '" + Describe(t) + "'");
}

ExprPtr Parser::ParsePostfix(ExprPtr node) {
  while (true) {
    const Token at = Cur();
    if (IsOp(".")) {
      Next();
      if (Cur().kind == Tok::Name) {
        auto e = Make(ExprKind::Attr, at);
        e->a = std::move(node);
        e->name = Cur().value;
        Next();
        node = std::move(e);
      } else if (Cur().kind == Tok::Int) {
        auto e = Make(ExprKind::Item, at);
        e->a = std::move(node);
        e->b = Make(ExprKind::Const, Cur());
        e->b->constant = Value::Int(std::strtoll(Cur().value.c_str(), nullptr, 10));
        Next();
        node = std::move(e);
      } else {
        Fail("expected name or number after '.'");
      }
    } else if (IsOp("[")) {
      Next();
      node = ParseSubscript(std::move(node), at);
    } else if (IsOp("(")) {
      auto e = Make(ExprKind::Call, at);
      e->a = std::move(node);
      ParseCallArgs(e->args);
      node = std::move(e);
    } else {
      return node;
    }
  }
}

ExprPtr Parser::ParseSubscript(ExprPtr subject, const Token& at) {
  ExprPtr parts[3];
  int colons = 0;
  bool any = false;
  while (!IsOp("]")) {
    if (IsOp(":")) {
      if (++colons > 2) Fail("unexpected ':'");
      Next();
      continue;
    }
    if (IsOp(",")) throw UnsupportedConstructError("tuple subscript", Cur().line, Cur().column);
    if (parts[colons]) Fail("expected ']' or ':', got '" + Describe(Cur()) + "'");
    parts[colons] = ParseExpression(true);
    any = true;
  }
  Next();
  if (colons == 0) {
    if (!any) Fail("expected subscript expression");
    auto e = Make(ExprKind::Item, at);
    e->a = std::move(subject);
    e->b = std::move(parts[0]);
    return e;
  }
  auto e = Make(ExprKind::Slice, at);
  e->a = std::move(subject);
  e->b = std::move(parts[0]);
  e->c = std::move(parts[1]);
  e->d = std::move(parts[2]);
  return e;
}

void Parser::ParseCallArgs(Arguments& args) {
  ExpectOp("(");
  bool first = true;
  while (!IsOp(")")) {
    if (!first) ExpectOp(",");
    first = false;
    if (IsOp(")")) break;
    if (IsOp("*") || IsOp("**")) throw UnsupportedConstructError("*args/**kwargs in calls", Cur().line, Cur().column);
    if (Cur().kind == Tok::Name && Peek().kind == Tok::Op && Peek().value == "=") {
      std::string key = Cur().value;
      Next();
      Next();
      args.keyword.emplace_back(key, ParseExpression(true));
    } else {
      if (!args.keyword.empty()) Fail("positional argument after keyword argument");
      args.positional.push_back(ParseExpression(true));
    }
  }
  Next();
}

std::string Parser::DottedName() {
  std::string name = ExpectName();
  while (IsOp(".") && Peek().kind == Tok::Name) {
    Next();
    name += "." + Cur().value;
    Next();
  }
  return name;
}

ExprPtr Parser::ParseFilter(ExprPtr subject) {
  const Token at = Cur();
  auto e = Make(ExprKind::Filter, at);
  e->name = DottedName();
  e->filter = FindFilter(e->name);
  if (!e->filter) {
    if (IsJinjaFilter(e->name)) throw UnsupportedConstructError("filter '" + e->name + "'", at.line, at.column);
    FailAt("No filter named '" + e->name + "'.", at);
  }
  e->a = std::move(subject);
  if (IsOp("(")) ParseCallArgs(e->args);
  return e;
}

ExprPtr Parser::ParseFilterExpr(ExprPtr node) {
  while (true) {
    if (IsOp("|")) {
      Next();
      node = ParseFilter(std::move(node));
    } else if (IsName("is")) {
      const Token at = Cur();
      Next();
      auto e = Make(ExprKind::Test, at);
      e->negated = SkipName("not");
      const Token name_tok = Cur();
      e->name = DottedName();
      e->test = FindTest(e->name);
      if (!e->test) {
        if (IsJinjaTest(e->name)) throw UnsupportedConstructError("test '" + e->name + "'", name_tok.line, name_tok.column);
        FailAt("No test named '" + e->name + "'.", name_tok);
      }
      e->a = std::move(node);
      const Token& c = Cur();
      if (IsOp("(")) {
        ParseCallArgs(e->args);
      } else if ((c.kind == Tok::Name || c.kind == Tok::String || c.kind == Tok::Int || c.kind == Tok::Float ||
                  (c.kind == Tok::Op && (c.value == "(" || c.value == "[" || c.value == "{"))) &&
                 !(c.kind == Tok::Name && (c.value == "else" || c.value == "or" || c.value == "and"))) {
        if (c.kind == Tok::Name && c.value == "is") Fail("You cannot chain multiple tests with is");
        e->args.positional.push_back(ParsePostfix(ParsePrimary()));
      }
      node = std::move(e);
    } else if (IsOp("(")) {
      const Token at = Cur();
      auto e = Make(ExprKind::Call, at);
      e->a = std::move(node);
      ParseCallArgs(e->args);
      node = std::move(e);
    } else {
      return node;
    }
  }
}

}  // namespace triton_studio::chat::detail
