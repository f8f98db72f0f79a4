// The parser's entry point (see parser.h) and how tokens are named in syntax errors.
#include "parser.h"

#include "jinja_parser.h"

namespace triton_studio::chat::detail {

std::string Parser::Describe(const Token& t) {
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

std::unique_ptr<Template> ParseTemplate(std::string_view source) {
  auto t = std::make_unique<Template>();
  t->source = std::string(source);
  std::string normalized = NormalizeSource(source);
  t->body = Parser(Lex(normalized)).ParseAll();
  return t;
}

}  // namespace triton_studio::chat::detail
