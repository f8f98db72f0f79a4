// Jinja lexer with transformers' settings (trim_blocks, lstrip_blocks, keep_trailing_newline off):
// template text becomes data, tag delimiters and the tokens inside tags. Whitespace control
// (`{%-`, `-%}`, `{%+`, `+%}`) is applied here, as jinja2's lexer does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace triton_studio::chat::detail {

enum class Tok {
  Data,        // template text
  VarBegin,    // {{
  VarEnd,      // }}
  BlockBegin,  // {%
  BlockEnd,    // %}
  Name,
  String,      // value: the decoded literal
  Int,
  Float,
  Op,          // value: the operator text
  Eof,
};

struct Token {
  Tok kind;
  std::string value;
  int line;
  int column;
};

// Newlines normalized as jinja2 does (str.splitlines + "\n"), the final line break dropped.
std::string NormalizeSource(std::string_view source);
// Throws TemplateSyntaxError with the place of the problem.
std::vector<Token> Lex(std::string_view normalized_source);

}  // namespace triton_studio::chat::detail
