// Recursive-descent Jinja parser following jinja2's grammar and operator precedence
// (or < and < not < comparisons < + - < ~ < * / // % < ** < unary < filters/tests < postfix).
#include "parser.h"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "builtins.h"
#include "lexer.h"

namespace triton_studio::chat::detail {

namespace {

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  Body ParseAll() {
    Body body = ParseBody({});
    if (Cur().kind != Tok::Eof) Fail("unexpected '" + Describe(Cur()) + "'");
    return body;
  }

 private:
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Peek(size_t k = 1) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  void Next() {
    if (pos_ + 1 < toks_.size()) ++pos_;
  }
  bool IsOp(const char* op) const { return Cur().kind == Tok::Op && Cur().value == op; }
  bool IsName(const char* name) const { return Cur().kind == Tok::Name && Cur().value == name; }
  bool SkipOp(const char* op) {
    if (!IsOp(op)) return false;
    Next();
    return true;
  }
  bool SkipName(const char* name) {
    if (!IsName(name)) return false;
    Next();
    return true;
  }
  void ExpectOp(const char* op) {
    if (!SkipOp(op)) Fail(std::string("expected '") + op + "', got '" + Describe(Cur()) + "'");
  }
  std::string ExpectName() {
    if (Cur().kind != Tok::Name) Fail("expected a name, got '" + Describe(Cur()) + "'");
    std::string n = Cur().value;
    Next();
    return n;
  }
  void ExpectBlockEnd() {
    if (Cur().kind != Tok::BlockEnd) Fail("expected end of statement block, got '" + Describe(Cur()) + "'");
    Next();
  }
  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case Tok::Eof: return "end of template";
      case Tok::BlockEnd: return "%}";
      case Tok::VarEnd: return "}}";
      case Tok::BlockBegin: return "{%";
      case Tok::VarBegin: return "{{";
      case Tok::Data: return "template data";
      default: return t.value;
    }
  }
  [[noreturn]] void Fail(const std::string& msg) const { throw TemplateSyntaxError(msg, Cur().line, Cur().column); }
  [[noreturn]] void FailAt(const std::string& msg, const Token& t) const {
    throw TemplateSyntaxError(msg, t.line, t.column);
  }

  // Statements up to (not consuming) a `{% <end> %}` whose name is in `ends`.
  Body ParseBody(const std::set<std::string>& ends) {
    Body body;
    while (true) {
      const Token& t = Cur();
      if (t.kind == Tok::Eof) {
        if (!ends.empty()) {
          std::string expected;
          for (const auto& e : ends) expected += (expected.empty() ? "'" : " or '") + e + "'";
          Fail("unexpected end of template: jinja was looking for " + expected);
        }
        return body;
      }
      if (t.kind == Tok::Data) {
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::Output;
        s->line = t.line;
        s->text = t.value;
        body.push_back(std::move(s));
        Next();
      } else if (t.kind == Tok::VarBegin) {
        Next();
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::Print;
        s->line = t.line;
        s->expr = ParseTuple(true, {});
        if (Cur().kind != Tok::VarEnd) Fail("expected '}}', got '" + Describe(Cur()) + "'");
        Next();
        body.push_back(std::move(s));
      } else if (t.kind == Tok::BlockBegin) {
        const Token& name = Peek();
        if (name.kind == Tok::Name && ends.count(name.value)) return body;
        Next();
        body.push_back(ParseStatement());
      } else {
        Fail("unexpected '" + Describe(t) + "'");
      }
    }
  }

  // Consumes `{% name` ... of an end/middle tag.
  std::string TakeTag() {
    Next();  // {%
    return ExpectName();
  }

  StmtPtr ParseStatement() {
    DepthGuard guard(*this);
    const Token tag = Cur();
    if (tag.kind != Tok::Name) Fail("tag name expected");
    const std::string& n = tag.value;
    auto s = std::make_unique<Stmt>();
    s->line = tag.line;
    Next();
    if (n == "if") {
      s->kind = StmtKind::If;
      ExprPtr cond = ParseTuple(false, {});
      ExpectBlockEnd();
      while (true) {
        Body b = ParseBody({"elif", "else", "endif"});
        s->branches.emplace_back(std::move(cond), std::move(b));
        std::string t = TakeTag();
        if (t == "elif") {
          cond = ParseTuple(false, {});
          ExpectBlockEnd();
          continue;
        }
        if (t == "else") {
          ExpectBlockEnd();
          s->body = ParseBody({"endif"});
          TakeTag();
        }
        ExpectBlockEnd();
        break;
      }
    } else if (n == "for") {
      s->kind = StmtKind::For;
      ParseTargets(s->targets, "in");
      if (!SkipName("in")) Fail("expected 'in', got '" + Describe(Cur()) + "'");
      s->expr = ParseTuple(false, {"recursive"}, /*with_condexpr=*/false);
      if (SkipName("if")) s->loop_filter = ParseExpression(true);
      if (SkipName("recursive")) s->recursive = true;
      ExpectBlockEnd();
      s->body = ParseBody({"endfor", "else"});
      if (TakeTag() == "else") {
        ExpectBlockEnd();
        s->else_body = ParseBody({"endfor"});
        TakeTag();
      }
      ExpectBlockEnd();
    } else if (n == "set") {
      if (Cur().kind == Tok::Name && Peek().kind == Tok::Op && Peek().value == ".") {
        s->kind = StmtKind::Set;
        s->target_object = ExpectName();
        Next();
        s->name = ExpectName();
      } else {
        ParseTargets(s->targets, "=");
      }
      if (SkipOp("=")) {
        s->kind = StmtKind::Set;
        s->expr = ParseTuple(true, {});
        ExpectBlockEnd();
      } else {
        if (!s->target_object.empty() || s->targets.size() != 1) Fail("expected '='");
        s->kind = StmtKind::SetBlock;
        while (SkipOp("|")) s->filters.push_back(ParseFilter(nullptr));
        ExpectBlockEnd();
        s->body = ParseBody({"endset"});
        TakeTag();
        ExpectBlockEnd();
      }
    } else if (n == "macro") {
      s->kind = StmtKind::Macro;
      s->name = ExpectName();
      ParseSignature(s->params);
      ExpectBlockEnd();
      size_t start = pos_;
      s->body = ParseBody({"endmacro"});
      for (size_t k = start; k < pos_; ++k) {
        if (toks_[k].kind == Tok::Name && toks_[k].value == "caller") s->uses_caller = true;
      }
      TakeTag();
      if (Cur().kind == Tok::Name) Next();  // {% endmacro name %}
      ExpectBlockEnd();
    } else if (n == "call") {
      s->kind = StmtKind::CallBlock;
      if (IsOp("(")) ParseSignature(s->params);
      s->expr = ParseExpression(true);
      if (s->expr->kind != ExprKind::Call) FailAt("expected call", tag);
      ExpectBlockEnd();
      s->body = ParseBody({"endcall"});
      TakeTag();
      ExpectBlockEnd();
    } else if (n == "filter") {
      s->kind = StmtKind::FilterBlock;
      s->filters.push_back(ParseFilter(nullptr));
      while (SkipOp("|")) s->filters.push_back(ParseFilter(nullptr));
      ExpectBlockEnd();
      s->body = ParseBody({"endfilter"});
      TakeTag();
      ExpectBlockEnd();
    } else if (n == "with") {
      s->kind = StmtKind::With;
      while (Cur().kind != Tok::BlockEnd) {
        if (!s->assignments.empty()) ExpectOp(",");
        std::string target = ExpectName();
        ExpectOp("=");
        s->assignments.emplace_back(target, ParseExpression(true));
      }
      ExpectBlockEnd();
      s->body = ParseBody({"endwith"});
      TakeTag();
      ExpectBlockEnd();
    } else if (n == "generation") {
      // transformers' AssistantTracker: the body renders as is (the indices only matter for masks).
      s->kind = StmtKind::With;
      ExpectBlockEnd();
      s->body = ParseBody({"endgeneration"});
      TakeTag();
      ExpectBlockEnd();
    } else if (n == "break" || n == "continue") {
      s->kind = n == "break" ? StmtKind::Break : StmtKind::Continue;
      ExpectBlockEnd();
    } else if (n == "include" || n == "import" || n == "from" || n == "extends" || n == "block" ||
               n == "autoescape") {
      throw UnsupportedConstructError("tag '" + n + "' (templates have no file system or loader)", tag.line,
                                      tag.column);
    } else {
      FailAt("Encountered unknown tag '" + n + "'.", tag);
    }
    return s;
  }

  void ParseTargets(std::vector<std::string>& targets, const char* end) {
    bool paren = SkipOp("(");
    while (true) {
      targets.push_back(ExpectName());
      if (!SkipOp(",")) break;
      if (Cur().kind != Tok::Name || IsName(end)) break;
    }
    if (paren) ExpectOp(")");
  }

  void ParseSignature(std::vector<std::pair<std::string, ExprPtr>>& params) {
    ExpectOp("(");
    while (!IsOp(")")) {
      if (!params.empty()) ExpectOp(",");
      if (IsOp(")")) break;
      std::string name = ExpectName();
      ExprPtr def;
      if (SkipOp("=")) def = ParseExpression(true);
      params.emplace_back(name, std::move(def));
    }
    Next();
  }

  ExprPtr Make(ExprKind kind, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }

  ExprPtr ParseTuple(bool with_condexpr_default, const std::set<std::string>& extra_end,
                     bool with_condexpr = true) {
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

  bool TupleEnds(const std::set<std::string>& extra_end) const {
    const Token& t = Cur();
    if (t.kind == Tok::VarEnd || t.kind == Tok::BlockEnd || t.kind == Tok::Eof) return true;
    if (t.kind == Tok::Op && (t.value == ")" || t.value == "]" || t.value == "}")) return true;
    return t.kind == Tok::Name && extra_end.count(t.value) > 0;
  }

  // Nesting is bounded so that hostile templates get an error, not a stack overflow (jinja2
  // hits Python's recursion limit on such templates too).
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.Fail("template nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    }
    ~DepthGuard() { --p.depth_; }
  };
  static constexpr int kMaxDepth = 200;

  ExprPtr ParseExpression(bool with_condexpr) {
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

  ExprPtr ParseOr() {
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

  ExprPtr ParseAnd() {
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

  ExprPtr ParseNot() {
    if (IsName("not")) {
      const Token at = Cur();
      Next();
      auto e = Make(ExprKind::Not, at);
      e->a = ParseNot();
      return e;
    }
    return ParseCompare();
  }

  ExprPtr ParseCompare() {
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

  ExprPtr Binary(BinOp op, ExprPtr l, ExprPtr r, const Token& at) {
    auto e = Make(ExprKind::Binary, at);
    e->bin_op = op;
    e->a = std::move(l);
    e->b = std::move(r);
    return e;
  }

  ExprPtr ParseMath1() {
    ExprPtr left = ParseConcat();
    while (IsOp("+") || IsOp("-")) {
      const Token at = Cur();
      Next();
      left = Binary(at.value == "+" ? BinOp::Add : BinOp::Sub, std::move(left), ParseConcat(), at);
    }
    return left;
  }

  ExprPtr ParseConcat() {
    ExprPtr left = ParseMath2();
    while (IsOp("~")) {
      const Token at = Cur();
      Next();
      left = Binary(BinOp::Concat, std::move(left), ParseMath2(), at);
    }
    return left;
  }

  ExprPtr ParseMath2() {
    ExprPtr left = ParsePow();
    while (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%")) {
      const Token at = Cur();
      Next();
      BinOp op = at.value == "*" ? BinOp::Mul : at.value == "/" ? BinOp::Div : at.value == "//" ? BinOp::FloorDiv : BinOp::Mod;
      left = Binary(op, std::move(left), ParsePow(), at);
    }
    return left;
  }

  ExprPtr ParsePow() {
    ExprPtr left = ParseUnary(true);
    while (IsOp("**")) {
      const Token at = Cur();
      Next();
      left = Binary(BinOp::Pow, std::move(left), ParseUnary(true), at);
    }
    return left;
  }

  ExprPtr ParseUnary(bool with_filter) {
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

  ExprPtr ParsePrimary() {
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
        break;
      default:
        break;
    }
    Fail("unexpected '" + Describe(t) + "'");
  }

  ExprPtr ParsePostfix(ExprPtr node) {
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

  ExprPtr ParseSubscript(ExprPtr subject, const Token& at) {
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

  void ParseCallArgs(Arguments& args) {
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

  std::string DottedName() {
    std::string name = ExpectName();
    while (IsOp(".") && Peek().kind == Tok::Name) {
      Next();
      name += "." + Cur().value;
      Next();
    }
    return name;
  }

  ExprPtr ParseFilter(ExprPtr subject) {
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

  ExprPtr ParseFilterExpr(ExprPtr node) {
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

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::unique_ptr<Template> ParseTemplate(std::string_view source) {
  auto t = std::make_unique<Template>();
  t->source = std::string(source);
  std::string normalized = NormalizeSource(source);
  t->body = Parser(Lex(normalized)).ParseAll();
  return t;
}

}  // namespace triton_studio::chat::detail
