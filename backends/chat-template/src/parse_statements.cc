// jinja2's statements: the template body (data, {{ }} and {% %}), and each tag: if/elif/else,
// for (with loop filter, recursive, else), set and set blocks, macro, call, filter, with,
// generation, break and continue. Loader tags are named as unsupported.
#include "builtins.h"
#include "jinja_parser.h"

namespace triton_studio::chat::detail {

Body Parser::ParseAll() {
  Body body = ParseBody({});
  if (Cur().kind != Tok::Eof) Fail("unexpected '" + Describe(Cur()) + "'");
  return body;
}

Body Parser::ParseBody(const std::set<std::string>& ends) {
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

std::string Parser::TakeTag() {
  Next();  // {%
  return ExpectName();
}

StmtPtr Parser::ParseStatement() {
  DepthGuard guard(*this);
  const Token tag = Cur();
  if (tag.kind != Tok::Name) Fail("tag name expected");
  const std::string& n = tag.value;
  auto s = std::make_unique<Stmt>();
  s->line = tag.line;
  Next();
  if (n == "if") {
    ParseIf(*s);
  } else if (n == "for") {
    ParseFor(*s);
  } else if (n == "set") {
    ParseSet(*s);
  } else if (n == "macro") {
    ParseMacro(*s);
  } else if (n == "call") {
    ParseCallBlock(*s, tag);
  } else if (n == "filter") {
    ParseFilterBlock(*s);
  } else if (n == "with") {
    ParseWith(*s);
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

// `{% if %}...{% elif %}...{% else %}...{% endif %}`.
void Parser::ParseIf(Stmt& s) {
  s.kind = StmtKind::If;
  ExprPtr cond = ParseTuple(false, {});
  ExpectBlockEnd();
  while (true) {
    Body b = ParseBody({"elif", "else", "endif"});
    s.branches.emplace_back(std::move(cond), std::move(b));
    std::string t = TakeTag();
    if (t == "elif") {
      cond = ParseTuple(false, {});
      ExpectBlockEnd();
      continue;
    }
    if (t == "else") {
      ExpectBlockEnd();
      s.body = ParseBody({"endif"});
      TakeTag();
    }
    ExpectBlockEnd();
    break;
  }
}

// `{% for targets in iterable [if filter] [recursive] %}...{% else %}...{% endfor %}`.
void Parser::ParseFor(Stmt& s) {
  s.kind = StmtKind::For;
  ParseTargets(s.targets, "in");
  if (!SkipName("in")) Fail("expected 'in', got '" + Describe(Cur()) + "'");
  s.expr = ParseTuple(false, {"recursive"}, /*with_condexpr=*/false);
  if (SkipName("if")) s.loop_filter = ParseExpression(true);
  if (SkipName("recursive")) s.recursive = true;
  ExpectBlockEnd();
  s.body = ParseBody({"endfor", "else"});
  if (TakeTag() == "else") {
    ExpectBlockEnd();
    s.else_body = ParseBody({"endfor"});
    TakeTag();
  }
  ExpectBlockEnd();
}

// `{% set targets = ... %}`, `{% set ns.attr = ... %}` and `{% set x | filters %}...{% endset %}`.
void Parser::ParseSet(Stmt& s) {
  if (Cur().kind == Tok::Name && Peek().kind == Tok::Op && Peek().value == ".") {
    s.kind = StmtKind::Set;
    s.target_object = ExpectName();
    Next();
    s.name = ExpectName();
  } else {
    ParseTargets(s.targets, "=");
  }
  if (SkipOp("=")) {
    s.kind = StmtKind::Set;
    s.expr = ParseTuple(true, {});
    ExpectBlockEnd();
  } else {
    if (!s.target_object.empty() || s.targets.size() != 1) Fail("expected '='");
    s.kind = StmtKind::SetBlock;
    while (SkipOp("|")) s.filters.push_back(ParseFilter(nullptr));
    ExpectBlockEnd();
    s.body = ParseBody({"endset"});
    TakeTag();
    ExpectBlockEnd();
  }
}

// `{% macro name(params) %}...{% endmacro %}`; notes whether the body uses `caller`.
void Parser::ParseMacro(Stmt& s) {
  s.kind = StmtKind::Macro;
  s.name = ExpectName();
  ParseSignature(s.params);
  ExpectBlockEnd();
  size_t start = pos_;
  s.body = ParseBody({"endmacro"});
  for (size_t k = start; k < pos_; ++k) {
    if (toks_[k].kind == Tok::Name && toks_[k].value == "caller") s.uses_caller = true;
  }
  TakeTag();
  if (Cur().kind == Tok::Name) Next();  // {% endmacro name %}
  ExpectBlockEnd();
}

// `{% call(params) macro(args) %}...{% endcall %}`.
void Parser::ParseCallBlock(Stmt& s, const Token& tag) {
  s.kind = StmtKind::CallBlock;
  if (IsOp("(")) ParseSignature(s.params);
  s.expr = ParseExpression(true);
  if (s.expr->kind != ExprKind::Call) FailAt("expected call", tag);
  ExpectBlockEnd();
  s.body = ParseBody({"endcall"});
  TakeTag();
  ExpectBlockEnd();
}

// `{% filter f | g %}...{% endfilter %}`.
void Parser::ParseFilterBlock(Stmt& s) {
  s.kind = StmtKind::FilterBlock;
  s.filters.push_back(ParseFilter(nullptr));
  while (SkipOp("|")) s.filters.push_back(ParseFilter(nullptr));
  ExpectBlockEnd();
  s.body = ParseBody({"endfilter"});
  TakeTag();
  ExpectBlockEnd();
}

// `{% with a = ..., b = ... %}...{% endwith %}`.
void Parser::ParseWith(Stmt& s) {
  s.kind = StmtKind::With;
  while (Cur().kind != Tok::BlockEnd) {
    if (!s.assignments.empty()) ExpectOp(",");
    std::string target = ExpectName();
    ExpectOp("=");
    s.assignments.emplace_back(target, ParseExpression(true));
  }
  ExpectBlockEnd();
  s.body = ParseBody({"endwith"});
  TakeTag();
  ExpectBlockEnd();
}

void Parser::ParseTargets(std::vector<std::string>& targets, const char* end) {
  bool paren = SkipOp("(");
  while (true) {
    targets.push_back(ExpectName());
    if (!SkipOp(",")) break;
    if (Cur().kind != Tok::Name || IsName(end)) break;
  }
  if (paren) ExpectOp(")");
}

void Parser::ParseSignature(std::vector<std::pair<std::string, ExprPtr>>& params) {
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

}  // namespace triton_studio::chat::detail
