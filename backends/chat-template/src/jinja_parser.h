// The Parser class: jinja2's grammar as a recursive-descent parser over the lexer's tokens, with
// the token cursor inline. Statements are parsed in parse_statements.cc, expressions (by
// jinja2's precedence) in parse_expressions.cc; parser.h is the entry point.
#pragma once

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "ast.h"
#include "lexer.h"

namespace triton_studio::chat::detail {

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}
  Body ParseAll();

 private:
  // The token cursor.
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
  // How a token is named in syntax errors.
  static std::string Describe(const Token& t);
  [[noreturn]] void Fail(const std::string& msg) const { throw TemplateSyntaxError(msg, Cur().line, Cur().column); }
  [[noreturn]] void FailAt(const std::string& msg, const Token& t) const {
    throw TemplateSyntaxError(msg, t.line, t.column);
  }

  // Statements (parse_statements.cc).
  // Statements up to (not consuming) a `{% <end> %}` whose name is in `ends`.
  Body ParseBody(const std::set<std::string>& ends);
  // Consumes `{% name` ... of an end/middle tag.
  std::string TakeTag();
  StmtPtr ParseStatement();
  void ParseIf(Stmt& s);
  void ParseFor(Stmt& s);
  void ParseSet(Stmt& s);
  void ParseMacro(Stmt& s);
  void ParseCallBlock(Stmt& s, const Token& tag);
  void ParseFilterBlock(Stmt& s);
  void ParseWith(Stmt& s);
  void ParseTargets(std::vector<std::string>& targets, const char* end);
  void ParseSignature(std::vector<std::pair<std::string, ExprPtr>>& params);

  // Expressions (parse_expressions.cc).
  ExprPtr Make(ExprKind kind, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = at.line;
    e->column = at.column;
    return e;
  }
  ExprPtr ParseTuple(bool with_condexpr_default, const std::set<std::string>& extra_end,
                     bool with_condexpr = true);
  bool TupleEnds(const std::set<std::string>& extra_end) const;
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
  ExprPtr ParseExpression(bool with_condexpr);
  ExprPtr ParseOr();
  ExprPtr ParseAnd();
  ExprPtr ParseNot();
  ExprPtr ParseCompare();
  ExprPtr Binary(BinOp op, ExprPtr l, ExprPtr r, const Token& at);
  ExprPtr ParseMath1();
  ExprPtr ParseConcat();
  ExprPtr ParseMath2();
  ExprPtr ParsePow();
  ExprPtr ParseUnary(bool with_filter);
  ExprPtr ParsePrimary();
  ExprPtr ParseBracketed(const Token& t);
  ExprPtr ParsePostfix(ExprPtr node);
  ExprPtr ParseSubscript(ExprPtr subject, const Token& at);
  void ParseCallArgs(Arguments& args);
  std::string DottedName();
  ExprPtr ParseFilter(ExprPtr subject);
  ExprPtr ParseFilterExpr(ExprPtr node);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace triton_studio::chat::detail
