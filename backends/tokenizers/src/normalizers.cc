// HF's normalizers (see normalizers.h), one class each, and the chain built from tokenizer.json.
#include "normalizers.h"

#include <vector>

#include "byte_level.h"
#include "component_table.h"
#include "onig_regex.h"
#include "precompiled.h"
#include "unicode.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

// Rust's char::is_whitespace (the White_Space property).
bool IsWhitespace(char32_t c) { return unicode::IsWhiteSpace(c); }

bool IsChineseChar(char32_t c) {
  // The CJK ranges BERT's original tokenizer pads with spaces.
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

class BertNormalizer final : public Normalizer {
 public:
  BertNormalizer(bool clean_text, bool chinese, bool strip_accents, bool lowercase)
      : clean_text_(clean_text), chinese_(chinese), strip_accents_(strip_accents), lowercase_(lowercase) {}

  // ASCII characters are NFD starters that no step here joins with a neighbour, so runs of ASCII
  // are normalized byte by byte and only the runs between them go through code points.
  void Normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    const size_t n = text.size();
    for (size_t i = 0; i < n;) {
      for (; i < n && static_cast<unsigned char>(text[i]) < 0x80; ++i) AppendAscii(text[i], out);
      size_t j = i;
      while (j < n && static_cast<unsigned char>(text[j]) >= 0x80) ++j;
      if (j > i) NormalizeCodePoints(std::string_view(text).substr(i, j - i), out);
      i = j;
    }
    text.swap(out);
  }

 private:
  void AppendAscii(char c, std::string& out) const {
    if (clean_text_) {
      if (c == '\t' || c == '\n' || c == '\r') {
        out.push_back(' ');
        return;
      }
      if (c < 0x20 || c == 0x7F) return;  // control characters (U+0000 included) are dropped
    }
    out.push_back(lowercase_ && c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c);
  }

  void NormalizeCodePoints(std::string_view segment, std::string& out) const {
    std::u32string cps = utf8::ToCodePoints(segment);
    std::u32string tmp;
    tmp.reserve(cps.size());
    if (clean_text_) {
      for (char32_t c : cps) {
        if (c == 0 || c == 0xFFFD) continue;
        const bool control = c != '\t' && c != '\n' && c != '\r' && unicode::IsOther(c);
        if (control) continue;
        const bool ws = c == '\t' || c == '\n' || c == '\r' || IsWhitespace(c);
        tmp.push_back(ws ? U' ' : c);
      }
      cps.swap(tmp);
      tmp.clear();
    }
    if (chinese_) {
      for (char32_t c : cps) {
        if (IsChineseChar(c)) {
          tmp.push_back(' ');
          tmp.push_back(c);
          tmp.push_back(' ');
        } else {
          tmp.push_back(c);
        }
      }
      cps.swap(tmp);
      tmp.clear();
    }
    if (strip_accents_) {
      cps = unicode::Normalize(cps, unicode::NormalForm::kNfd);
      for (char32_t c : cps)
        if (!unicode::IsMarkNonspacing(c)) tmp.push_back(c);
      cps.swap(tmp);
      tmp.clear();
    }
    if (lowercase_) {
      for (char32_t c : cps) unicode::AppendLowercase(c, tmp);
      cps.swap(tmp);
    }
    out += utf8::FromCodePoints(cps);
  }

  bool clean_text_, chinese_, strip_accents_, lowercase_;
};

class Lowercase final : public Normalizer {
 public:
  void Normalize(std::string& text) const override {
    std::u32string out;
    for (char32_t c : utf8::ToCodePoints(text)) unicode::AppendLowercase(c, out);
    text = utf8::FromCodePoints(out);
  }
};

class StripAccents final : public Normalizer {
 public:
  void Normalize(std::string& text) const override {
    std::u32string out;
    for (char32_t c : utf8::ToCodePoints(text))
      if (!unicode::IsMarkUnicode9(c)) out.push_back(c);
    text = utf8::FromCodePoints(out);
  }
};

class UnicodeForm final : public Normalizer {
 public:
  explicit UnicodeForm(unicode::NormalForm form) : form_(form), checks_(unicode::FormChecksOf(form)) {}
  // An inert character (unicode::FormChecks::Inert: every ASCII one, and most others: accented
  // Latin, CJK, Cyrillic, emoji) is a starter the form keeps that composes with nothing before it,
  // so neither reordering nor composition crosses it: text splits before any inert character into
  // parts that normalize on their own. Inert runs are copied; only a part around a character that
  // is not inert goes through code points, starting at the inert character before it (which may
  // compose with it: e + U+0301). Converting every input to code points was most of a Qwen3 encode.
  // Keeps is Unicode's quick check: beyond inert characters, marks the form keeps (a Devanagari
  // virama) pass when each run of them is in canonical order, and so does a character that answers
  // "Maybe" (a Bengali vowel sign AA) right after a starter it does not compose with, so such text
  // is not copied either (it was 7% of a Qwen3 encode of the corpus).
  bool Keeps(std::string_view text) const override {
    const size_t n = text.size();
    int last_class = 0;  // of the mark before, in the run of marks that goes on
    char32_t before = 0;  // the character before the one checked (0: none)
    for (size_t i = 0, len, last_inert = 0; i < n; i += len) {
      const size_t active = NextActive(text, i, last_inert);
      if (active == n) return true;
      if (active != i) {  // a starter passed
        last_class = 0;
        before = CharAt(text, last_inert, len);
      }
      i = active;
      const char32_t c = CharAt(text, i, len);
      const int k = checks_.KeptClass(before, c);
      if (k < 0 || (k != 0 && k < last_class)) return false;
      last_class = k;
      before = c;
    }
    return true;
  }
  void Normalize(std::string& text) const override {
    const size_t n = text.size();
    size_t copied = 0, last_inert = 0;
    size_t active = NextActive(text, 0, last_inert);
    if (active == n) return;  // already in the form: most text
    std::string out;
    out.reserve(n + n / 8);
    while (active < n) {
      const size_t begin = last_inert >= copied && last_inert < active ? last_inert : active;
      size_t end = active;
      for (size_t len; end < n; end += len)  // through the characters that are not inert
        if (checks_.Inert(CharAt(text, end, len))) break;
      out.append(text, copied, begin - copied);
      out += utf8::FromCodePoints(
          unicode::Normalize(utf8::ToCodePoints(std::string_view(text).substr(begin, end - begin)), form_));
      copied = end;
      last_inert = n;  // none passed yet
      active = NextActive(text, end, last_inert);
    }
    out.append(text, copied, n - copied);
    text.swap(out);
  }

 private:
  // The character at text[i] (valid UTF-8, the normalizers' input) and its length in `len`,
  // decoded in place: a call per character to the checked decoder was a third of Keeps. A
  // sequence the text cuts short is no character (beyond U+10FFFF: neither inert nor "Yes").
  static char32_t CharAt(std::string_view text, size_t i, size_t& len) {
    const auto byte = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(text[i + k])); };
    const char32_t b = byte(0);
    len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    if (i + len > text.size()) {
      len = text.size() - i;
      return 0x110000;
    }
    switch (len) {
      case 1:
        return b;
      case 2:
        return (b & 0x1F) << 6 | (byte(1) & 0x3F);
      case 3:
        return (b & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
      default:
        return (b & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 | (byte(3) & 0x3F);
    }
  }

  // The start of the first character at or after i that is not inert; `last_inert` becomes the
  // start of the inert character before it, if any was passed.
  size_t NextActive(std::string_view text, size_t i, size_t& last_inert) const {
    const size_t n = text.size();
    for (size_t len; i < n; i += len) {
      if (static_cast<unsigned char>(text[i]) < 0x80) {
        i += utf8::AsciiRun(text, i) - 1;  // the run's last byte, the inert character before whatever follows
        len = 1;
      } else if (!checks_.Inert(CharAt(text, i, len))) {
        return i;
      }
      last_inert = i;
    }
    return n;
  }

  unicode::NormalForm form_;
  const unicode::FormChecks& checks_;
};

// Replace: HF runs a String pattern as its escaped regex, so a non-empty string is replaced at
// its leftmost non-overlapping occurrences; a Regex (or the empty string, the empty regex) runs in
// Oniguruma, empty matches included.
class Replace final : public Normalizer {
 public:
  Replace(std::string literal, std::string content) : literal_(std::move(literal)), content_(std::move(content)) {
    if (literal_.empty()) regex_ = std::make_unique<OnigRegex>("", "(empty replace string)");
  }
  Replace(const std::string& regex, const std::string& path, std::string content)
      : content_(std::move(content)), regex_(std::make_unique<OnigRegex>(regex, path)) {}
  void Normalize(std::string& text) const override {
    if (regex_) return ReplaceMatches(text);
    if (text.find(literal_) == std::string::npos) return;
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    size_t pos = 0;
    for (size_t hit; (hit = text.find(literal_, pos)) != std::string::npos; pos = hit + literal_.size()) {
      out.append(text, pos, hit - pos);
      out.append(content_);
    }
    out.append(text, pos, std::string::npos);
    text.swap(out);
  }

 private:
  void ReplaceMatches(std::string& text) const {
    thread_local std::vector<Range> matches;
    matches.clear();
    regex_->FindMatches(text, matches);
    if (matches.empty()) return;
    std::string out;
    out.reserve(text.size() + matches.size() * content_.size());
    size_t pos = 0;
    for (const Range& m : matches) {
      out.append(text, pos, m.first - pos);
      out.append(content_);
      pos = m.second;
    }
    out.append(text, pos, std::string::npos);
    text.swap(out);
  }

  std::string literal_, content_;
  std::unique_ptr<OnigRegex> regex_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void Normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);  // HF prepends only to non-empty pieces
  }

 private:
  std::string prefix_;
};

class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void Normalize(std::string& text) const override {
    std::u32string cps = utf8::ToCodePoints(text);
    size_t b = 0, e = cps.size();
    if (left_)
      while (b < e && IsWhitespace(cps[b])) ++b;
    if (right_)
      while (e > b && IsWhitespace(cps[e - 1])) --e;
    text = utf8::FromCodePoints(std::u32string_view(cps).substr(b, e - b));
  }

 private:
  bool left_, right_;
};

// Nmt: SentencePiece's nmt_nfkc control-character rule without the NFKC, as HF does: ASCII and C1
// controls are dropped, other line breaks and invisible spaces become a space.
class Nmt final : public Normalizer {
 public:
  void Normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    const std::string_view in(text);
    for (size_t i = 0; i < in.size();) {
      size_t n = utf8::ValidSequenceLength(in, i);
      if (n == 0) n = 1;
      const char32_t c = utf8::DecodeAt(in, i, n);
      if (AsSpace(c))
        out.push_back(' ');
      else if (!Dropped(c))
        out.append(in.substr(i, n));
      i += n;
    }
    text.swap(out);
  }

 private:
  static bool Dropped(char32_t c) {
    return (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F || c == 0x8F ||
           c == 0x9F;
  }
  static bool AsSpace(char32_t c) {
    return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 || (c >= 0x200B && c <= 0x200F) ||
           c == 0x2028 || c == 0x2029 || c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
  }
};

// ByteLevel as a normalizer: every byte of the text becomes its GPT-2 alphabet character.
class ByteLevelNormalizer final : public Normalizer {
 public:
  void Normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size() * 2);
    byte_level::AppendAsChars(text, out);
    text.swap(out);
  }
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  void Normalize(std::string& text) const override {
    for (const auto& p : parts_) p->Normalize(text);
  }
  bool Keeps(std::string_view text) const override {
    for (const auto& p : parts_)
      if (!p->Keeps(text)) return false;
    return true;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

using NormalizerFactory = std::unique_ptr<Normalizer> (*)(const Json&, const std::string&);

const ComponentEntry<NormalizerFactory> kNormalizers[] = {
    {"BertNormalizer",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       AllowOnlyKeys(node, path, {"clean_text", "handle_chinese_chars", "strip_accents", "lowercase"});
       const bool lowercase = GetBool(node, "lowercase", path, true);
       return std::make_unique<BertNormalizer>(GetBool(node, "clean_text", path, true),
                                               GetBool(node, "handle_chinese_chars", path, true),
                                               GetBool(node, "strip_accents", path, lowercase), lowercase);
     }},
    {"Lowercase", [](const Json&, const std::string&) -> std::unique_ptr<Normalizer> {
       return std::make_unique<Lowercase>();
     }},
    {"StripAccents", [](const Json&, const std::string&) -> std::unique_ptr<Normalizer> {
       return std::make_unique<StripAccents>();
     }},
    {"NFD", [](const Json&, const std::string&) -> std::unique_ptr<Normalizer> {
       return std::make_unique<UnicodeForm>(unicode::NormalForm::kNfd);
     }},
    {"NFKD", [](const Json&, const std::string&) -> std::unique_ptr<Normalizer> {
       return std::make_unique<UnicodeForm>(unicode::NormalForm::kNfkd);
     }},
    {"NFC", [](const Json&, const std::string&) -> std::unique_ptr<Normalizer> {
       return std::make_unique<UnicodeForm>(unicode::NormalForm::kNfc);
     }},
    {"NFKC", [](const Json&, const std::string&) -> std::unique_ptr<Normalizer> {
       return std::make_unique<UnicodeForm>(unicode::NormalForm::kNfkc);
     }},
    {"Replace",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       AllowOnlyKeys(node, path, {"pattern", "content"});
       const Json* pattern = Find(node, "pattern");
       if (pattern == nullptr || !pattern->is_object()) FieldError(path + ".pattern", "missing pattern object");
       std::string content = GetString(node, "content", path);
       if (pattern->contains("Regex"))
         return std::make_unique<Replace>(GetString(*pattern, "Regex", path + ".pattern"), path + ".pattern.Regex",
                                          std::move(content));
       return std::make_unique<Replace>(GetString(*pattern, "String", path + ".pattern"), std::move(content));
     }},
    {"Prepend",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       AllowOnlyKeys(node, path, {"prepend"});
       return std::make_unique<Prepend>(GetString(node, "prepend", path));
     }},
    {"Strip",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       AllowOnlyKeys(node, path, {"strip_left", "strip_right"});
       return std::make_unique<Strip>(GetBool(node, "strip_left", path, true),
                                      GetBool(node, "strip_right", path, true));
     }},
    {"Precompiled", MakePrecompiled},
    {"Nmt",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       AllowOnlyKeys(node, path, {});
       return std::make_unique<Nmt>();
     }},
    {"ByteLevel",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       AllowOnlyKeys(node, path, {});
       return std::make_unique<ByteLevelNormalizer>();
     }},
    {"Sequence",
     [](const Json& node, const std::string& path) -> std::unique_ptr<Normalizer> {
       const Json* list = Find(node, "normalizers");
       if (list == nullptr || !list->is_array()) FieldError(path + ".normalizers", "expected an array");
       std::vector<std::unique_ptr<Normalizer>> parts;
       for (size_t i = 0; i < list->size(); ++i)
         parts.push_back(MakeNormalizer((*list)[i], path + ".normalizers[" + std::to_string(i) + "]"));
       return std::make_unique<Sequence>(std::move(parts));
     }},
};

}  // namespace

std::unique_ptr<Normalizer> MakeNormalizer(const Json& node, const std::string& path) {
  return FindComponent(kNormalizers, node, path, "normalizer")(node, path);
}

}  // namespace triton_studio::tok
