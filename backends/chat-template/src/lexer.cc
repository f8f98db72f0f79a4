// The Jinja lexer (see lexer.h). Positions are 1-based lines and code-point columns.
#include "lexer.h"

#include <cstring>

#include "triton_studio/chat_template.h"
#include "utf8.h"

namespace triton_studio::chat::detail {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

// Python's 'unicode-escape' decoding of a string literal body (non-ASCII text kept as is).
std::string DecodeEscapes(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    auto hex = [&](size_t digits) -> bool {
      if (i + digits >= body.size()) return false;
      uint32_t cp = 0;
      for (size_t k = 1; k <= digits; ++k) {
        char h = body[i + k];
        int d = IsDigit(h) ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10 : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
        if (d < 0) return false;
        cp = cp * 16 + d;
      }
      AppendUtf8(out, cp);
      i += digits;
      return true;
    };
    switch (e) {
      case '\n': break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x':
        if (!hex(2)) throw std::invalid_argument("truncated \\xXX escape");
        break;
      case 'u':
        if (!hex(4)) throw std::invalid_argument("truncated \\uXXXX escape");
        break;
      case 'U':
        if (!hex(8)) throw std::invalid_argument("truncated \\UXXXXXXXX escape");
        break;
      case 'N':
        throw std::invalid_argument("\\N{...} escapes (named characters) are not supported; write the character itself");
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = e - '0';
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k) {
            cp = cp * 8 + (body[++i] - '0');
          }
          AppendUtf8(out, cp);
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  std::vector<Token> Run() {
    bool line_starting = true;
    while (pos_ < src_.size()) {
      size_t tag = FindTag(pos_);
      std::string_view text = src_.substr(pos_, tag - pos_);
      if (tag == src_.size()) {
        Emit(Tok::Data, std::string(text), pos_);
        pos_ = tag;
        break;
      }
      char kind = src_[tag + 1];  // '{', '%' or '#'
      char sign = tag + 2 < src_.size() ? src_[tag + 2] : 0;
      bool is_raw = kind == '%' && IsRawBegin(tag);
      if (sign == '-') {
        size_t end = text.size();
        while (end > 0 && IsSpace(text[end - 1])) --end;
        text = text.substr(0, end);
      } else if (sign != '+' && kind != '{') {
        text = LStrip(text, line_starting);
      }
      if (!text.empty()) Emit(Tok::Data, std::string(text), pos_);
      if (kind == '#') {
        line_starting = SkipComment(tag);
      } else if (is_raw) {
        line_starting = LexRaw(tag);
      } else {
        line_starting = LexTag(tag, kind == '{');
      }
    }
    Emit(Tok::Eof, "", src_.size());
    return std::move(tokens_);
  }

 private:
  // lstrip_blocks: whitespace between the line start and a block/comment tag goes.
  static std::string_view LStrip(std::string_view text, bool line_starting) {
    size_t nl = text.rfind('\n');
    size_t l_pos = nl == std::string_view::npos ? 0 : nl + 1;
    if (l_pos == 0 && !line_starting) return text;
    for (size_t k = l_pos; k < text.size(); ++k) {
      if (!IsSpace(text[k])) return text;
    }
    return text.substr(0, l_pos);
  }

  size_t FindTag(size_t from) const {
    for (size_t i = from; i + 1 < src_.size(); ++i) {
      if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
    }
    return src_.size();
  }

  // `{%[-+]? raw [-]?%}` at `tag`.
  bool IsRawBegin(size_t tag) const {
    size_t i = tag + 2;
    if (i < src_.size() && (src_[i] == '-' || src_[i] == '+')) ++i;
    while (i < src_.size() && IsSpace(src_[i])) ++i;
    if (src_.compare(i, 3, "raw") != 0) return false;
    i += 3;
    while (i < src_.size() && IsSpace(src_[i])) ++i;
    if (i < src_.size() && src_[i] == '-') ++i;
    return src_.compare(i, 2, "%}") == 0;
  }

  // After a block/comment end: `+%}` keeps what follows, `-%}` drops all whitespace, `%}` one newline.
  bool AfterBlockEnd(size_t end_pos, char sign) {
    pos_ = end_pos;
    if (sign == '-') {
      while (pos_ < src_.size() && IsSpace(src_[pos_])) ++pos_;
    } else if (sign != '+' && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
    }
    return pos_ > 0 && src_[pos_ - 1] == '\n';
  }

  bool SkipComment(size_t tag) {
    size_t end = src_.find("#}", tag + 2);
    if (end == std::string_view::npos) Fail("missing end of comment tag", tag);
    char sign = end > tag + 2 ? src_[end - 1] : 0;
    return AfterBlockEnd(end + 2, sign == '-' || sign == '+' ? sign : 0);
  }

  bool LexRaw(size_t tag) {
    size_t i = src_.find("%}", tag) + 2;
    bool strip_after_begin = src_[i - 3] == '-';
    if (strip_after_begin) {
      while (i < src_.size() && IsSpace(src_[i])) ++i;
    }
    // Find {%[-+]? endraw [-+]?%}
    for (size_t j = i; j + 1 < src_.size(); ++j) {
      if (src_[j] != '{' || src_[j + 1] != '%') continue;
      size_t k = j + 2;
      char sign = 0;
      if (k < src_.size() && (src_[k] == '-' || src_[k] == '+')) sign = src_[k++];
      while (k < src_.size() && IsSpace(src_[k])) ++k;
      if (src_.compare(k, 6, "endraw") != 0) continue;
      k += 6;
      while (k < src_.size() && IsSpace(src_[k])) ++k;
      char end_sign = 0;
      if (k < src_.size() && (src_[k] == '-' || src_[k] == '+')) end_sign = src_[k++];
      if (src_.compare(k, 2, "%}") != 0) continue;
      std::string_view body = src_.substr(i, j - i);
      if (sign == '-') {
        size_t e = body.size();
        while (e > 0 && IsSpace(body[e - 1])) --e;
        body = body.substr(0, e);
      } else if (sign != '+') {
        body = LStrip(body, false);
      }
      if (!body.empty()) Emit(Tok::Data, std::string(body), i);
      return AfterBlockEnd(k + 2, end_sign);
    }
    Fail("missing end of raw directive", tag);
  }

  bool LexTag(size_t tag, bool variable) {
    Emit(variable ? Tok::VarBegin : Tok::BlockBegin, "", tag);
    size_t i = tag + 2;
    if (i < src_.size() && (src_[i] == '-' || src_[i] == '+')) ++i;
    std::vector<char> balance;
    const char* end_delim = variable ? "}}" : "%}";
    while (true) {
      while (i < src_.size() && IsSpace(src_[i])) ++i;
      if (i >= src_.size()) Fail(variable ? "unexpected end of template, expected '}}'" : "unexpected end of template, expected '%}'", tag);
      if (balance.empty()) {
        char sign = 0;
        size_t at = i;
        if ((src_[i] == '-' || (!variable && src_[i] == '+')) && src_.compare(i + 1, 2, end_delim) == 0) {
          sign = src_[i];
          at = i + 1;
        }
        if (src_.compare(at, 2, end_delim) == 0) {
          Emit(variable ? Tok::VarEnd : Tok::BlockEnd, "", at);
          if (variable) {
            pos_ = at + 2;
            if (sign == '-') {
              while (pos_ < src_.size() && IsSpace(src_[pos_])) ++pos_;
            }
            return pos_ > 0 && src_[pos_ - 1] == '\n';
          }
          return AfterBlockEnd(at + 2, sign);
        }
        // The other tag's end inside this one is a syntax error in jinja2 too.
        if (src_.compare(i, 2, variable ? "%}" : "}}") == 0) {
          Fail(std::string("unexpected '") + std::string(src_.substr(i, 2)) + "'", i);
        }
      }
      char c = src_[i];
      if (IsNameStart(c)) {
        size_t s = i;
        while (i < src_.size() && IsNameChar(src_[i])) ++i;
        Emit(Tok::Name, std::string(src_.substr(s, i - s)), s);
      } else if (IsDigit(c)) {
        i = LexNumber(i);
      } else if (c == '\'' || c == '"') {
        size_t s = i++;
        while (i < src_.size() && src_[i] != c) {
          if (src_[i] == '\\') ++i;
          ++i;
        }
        if (i >= src_.size()) Fail("unexpected end of string literal", s);
        try {
          Emit(Tok::String, DecodeEscapes(src_.substr(s + 1, i - s - 1)), s);
        } catch (const std::invalid_argument& e) {
          Fail(e.what(), s);
        }
        ++i;
      } else {
        static const char* kOps[] = {"//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[", "]",
                                     "(", ")", "{", "}", ">", "<", "=", ".", ":", "|", ",", ";"};
        const char* op = nullptr;
        for (const char* o : kOps) {
          if (src_.compare(i, std::strlen(o), o) == 0) {
            op = o;
            break;
          }
        }
        if (!op) Fail(std::string("unexpected char '") + c + "'", i);
        std::string o(op);
        if (o == "(" || o == "[" || o == "{") {
          balance.push_back(o == "(" ? ')' : o == "[" ? ']' : '}');
        } else if (o == ")" || o == "]" || o == "}") {
          if (balance.empty()) Fail("unexpected '" + o + "'", i);
          if (balance.back() != o[0]) Fail(std::string("unexpected '") + o + "', expected '" + balance.back() + "'", i);
          balance.pop_back();
        }
        Emit(Tok::Op, o, i);
        i += o.size();
      }
    }
  }

  size_t LexNumber(size_t i) {
    size_t s = i;
    auto digits = [&]() {
      while (i < src_.size() && (IsDigit(src_[i]) || (src_[i] == '_' && i + 1 < src_.size() && IsDigit(src_[i + 1])))) ++i;
    };
    digits();
    bool is_float = false;
    if (i + 1 < src_.size() && src_[i] == '.' && IsDigit(src_[i + 1])) {
      is_float = true;
      ++i;
      digits();
    }
    if (i < src_.size() && (src_[i] == 'e' || src_[i] == 'E')) {
      size_t k = i + 1;
      if (k < src_.size() && (src_[k] == '+' || src_[k] == '-')) ++k;
      if (k < src_.size() && IsDigit(src_[k])) {
        is_float = true;
        i = k;
        digits();
      }
    }
    std::string text;
    for (size_t k = s; k < i; ++k) {
      if (src_[k] != '_') text += src_[k];
    }
    Emit(is_float ? Tok::Float : Tok::Int, text, s);
    return i;
  }

  void Emit(Tok kind, std::string value, size_t at) {
    auto [line, column] = Position(at);
    tokens_.push_back(Token{kind, std::move(value), line, column});
  }

  std::pair<int, int> Position(size_t at) {
    // Positions only move forward; continue counting from the last one.
    if (at < line_pos_) {
      line_pos_ = 0;
      line_ = 1;
      line_start_ = 0;
    }
    for (; line_pos_ < at && line_pos_ < src_.size(); ++line_pos_) {
      if (src_[line_pos_] == '\n') {
        ++line_;
        line_start_ = line_pos_ + 1;
      }
    }
    int column = 1 + static_cast<int>(CodePointCount(src_.substr(line_start_, at - line_start_)));
    return {line_, column};
  }

  [[noreturn]] void Fail(const std::string& message, size_t at) {
    auto [line, column] = Position(at);
    throw TemplateSyntaxError(message, line, column);
  }

  std::string_view src_;
  size_t pos_ = 0;
  std::vector<Token> tokens_;
  size_t line_pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

}  // namespace

std::string NormalizeSource(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = 0;  // length of a line boundary at i
    if (c == '\r') {
      len = (i + 1 < s.size() && s[i + 1] == '\n') ? 2 : 1;
    } else if (c == '\n' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e) {
      len = 1;
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) {
      len = 2;
    } else if (c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(s[i + 2]) == 0xA8 || static_cast<unsigned char>(s[i + 2]) == 0xA9)) {
      len = 3;
    }
    if (len) {
      if (i + len < s.size()) out += '\n';  // the final line break is dropped
      i += len;
    } else {
      out += static_cast<char>(c);
      ++i;
    }
  }
  return out;
}

std::vector<Token> Lex(std::string_view normalized_source) { return Lexer(normalized_source).Run(); }

}  // namespace triton_studio::chat::detail
