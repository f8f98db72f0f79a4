// HF's pre-tokenizers (see pre_tokenizers.h), one class each, and the chain built from
// tokenizer.json.
#include "pre_tokenizers.h"

#include <algorithm>
#include <array>
#include <functional>

#include "byte_level.h"
#include "component_table.h"
#include "fixed_length.h"
#include "onig_regex.h"
#include "split_behavior.h"
#include "split_scanner.h"
#include "unicode.h"
#include "unicode_scripts.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

// Splits each piece on single characters matching `pred`.
void SplitOnChars(Pieces& pieces, const std::function<bool(char32_t)>& pred, Behavior behavior) {
  std::vector<Range> out;
  out.reserve(pieces.ranges.size() * 2);
  std::vector<SplitSegment> segs;
  const std::string_view text = pieces.text;
  for (const Range& r : pieces.ranges) {
    segs.clear();
    uint32_t seg_start = r.first;
    for (uint32_t i = r.first; i < r.second;) {
      const size_t n = utf8::ValidSequenceLength(text, i);
      const char32_t c = utf8::DecodeAt(text, i, n);
      if (pred(c)) {
        if (seg_start < i) segs.push_back({{seg_start, i}, false});
        segs.push_back({{i, static_cast<uint32_t>(i + n)}, true});
        seg_start = static_cast<uint32_t>(i + n);
      }
      i += static_cast<uint32_t>(n);
    }
    if (seg_start < r.second) segs.push_back({{seg_start, r.second}, false});
    ApplyBehavior(segs, behavior, out);
  }
  pieces.ranges.swap(out);
}

// Rust's char::is_ascii_punctuation || Unicode \p{P}: BERT's punctuation.
bool IsBertPunctuation(char32_t c) {
  if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return unicode::IsPunctuation(c);
}

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}
  void PreTokenize(Pieces& pieces) const override {
    if (add_prefix_space_) {
      // HF prepends a space to every piece that does not already start with one.
      std::string text;
      std::vector<Range> ranges;
      for (const Range& r : pieces.ranges) {
        const auto begin = static_cast<uint32_t>(text.size());
        if (r.second > r.first && pieces.text[r.first] != ' ') text.push_back(' ');
        text.append(pieces.text, r.first, r.second - r.first);
        ranges.emplace_back(begin, static_cast<uint32_t>(text.size()));
      }
      pieces.Rewrite(text);
      pieces.ranges.swap(ranges);
    }
    if (!use_regex_) return;
    std::vector<Range>& out = pieces.spare;
    out.clear();
    out.reserve(pieces.text.size() / 4 + 1);
    const std::string_view text = pieces.text;
    for (const Range& r : pieces.ranges)
      byte_level::SplitGpt2(text.substr(r.first, r.second - r.first), r.first, out);
    pieces.ranges.swap(out);
  }
  bool ByteLevelOutput() const override { return true; }
  AsScan AsScanner() const override {
    if (add_prefix_space_) return {};
    if (!use_regex_) return {nullptr, true};
    return {byte_level::SplitGpt2Into, false};
  }

 private:
  bool add_prefix_space_, use_regex_;
};

// HF runs two splits (white space removed, then punctuation isolated); no character is both, so
// one pass gives the same pieces. ASCII is classified by a table built from the same predicates.
class BertPreTokenizer final : public PreTokenizer {
 public:
  void PreTokenize(Pieces& pieces) const override {
    static const std::array<CharClass, 128> kAscii = [] {
      std::array<CharClass, 128> table{};
      for (char32_t c = 0; c < 128; ++c) table[c] = Classify(c);
      return table;
    }();
    std::vector<Range> out;
    out.reserve(pieces.ranges.size() * 2);
    const std::string_view text = pieces.text;
    for (const Range& r : pieces.ranges) {
      uint32_t word_start = r.first;
      for (uint32_t i = r.first; i < r.second;) {
        const auto byte = static_cast<unsigned char>(text[i]);
        uint32_t n = 1;
        CharClass cls;
        if (byte < 0x80) {
          cls = kAscii[byte];
        } else {
          n = static_cast<uint32_t>(utf8::ValidSequenceLength(text, i));
          cls = Classify(utf8::DecodeAt(text, i, n));
        }
        if (cls != CharClass::kWord) {
          if (word_start < i) out.push_back({word_start, i});
          if (cls == CharClass::kPunctuation) out.push_back({i, i + n});
          word_start = i + n;
        }
        i += n;
      }
      if (word_start < r.second) out.push_back({word_start, r.second});
    }
    pieces.ranges.swap(out);
  }

 private:
  enum class CharClass : uint8_t { kWord, kSpace, kPunctuation };
  static CharClass Classify(char32_t c) {
    if (unicode::IsWhiteSpace(c)) return CharClass::kSpace;
    return IsBertPunctuation(c) ? CharClass::kPunctuation : CharClass::kWord;
  }
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  void PreTokenize(Pieces& pieces) const override {
    SplitOnChars(pieces, [](char32_t c) { return unicode::IsWhiteSpace(c); }, Behavior::kRemoved);
  }
};

class CharDelimiterSplit final : public PreTokenizer {
 public:
  explicit CharDelimiterSplit(char32_t delimiter) : delimiter_(delimiter) {}
  void PreTokenize(Pieces& pieces) const override {
    const char32_t d = delimiter_;
    SplitOnChars(pieces, [d](char32_t c) { return c == d; }, Behavior::kRemoved);
  }

 private:
  char32_t delimiter_;
};

class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(Behavior b) : behavior_(b) {}
  void PreTokenize(Pieces& pieces) const override { SplitOnChars(pieces, IsBertPunctuation, behavior_); }

 private:
  Behavior behavior_;
};

class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual) : individual_(individual) {}
  void PreTokenize(Pieces& pieces) const override {
    SplitOnChars(pieces, [](char32_t c) { return unicode::IsNumber(c); },
                 individual_ ? Behavior::kIsolated : Behavior::kContiguous);
  }

 private:
  bool individual_;
};

enum class PrependScheme { kAlways, kFirst, kNever };

class Metaspace final : public PreTokenizer {
 public:
  Metaspace(char32_t replacement, PrependScheme scheme, bool split)
      : scheme_(scheme), split_(split), replacement_char_(replacement) {
    utf8::Append(replacement, replacement_);
  }
  void PreTokenize(Pieces& pieces) const override {
    std::string text;
    std::vector<Range> ranges;
    text.reserve(pieces.text.size() + pieces.text.size() / 4);
    for (const Range& r : pieces.ranges) {
      const auto begin = static_cast<uint32_t>(text.size());
      const std::string_view piece = pieces.text.substr(r.first, r.second - r.first);
      const bool prepend = (scheme_ == PrependScheme::kAlways ||
                            (scheme_ == PrependScheme::kFirst && pieces.at_input_start && r.first == 0)) &&
                           !piece.empty() && piece.substr(0, 1) != " " &&
                           piece.substr(0, replacement_.size()) != replacement_;
      if (prepend) text.append(replacement_);
      for (char ch : piece) {
        if (ch == ' ') {
          text.append(replacement_);
        } else {
          text.push_back(ch);
        }
      }
      ranges.emplace_back(begin, static_cast<uint32_t>(text.size()));
    }
    pieces.Rewrite(text);
    pieces.ranges.swap(ranges);
    if (split_) {
      const char32_t rep = replacement_char_;
      SplitOnChars(pieces, [rep](char32_t c) { return c == rep; }, Behavior::kMergedWithNext);
    }
  }

 private:
  PrependScheme scheme_;
  bool split_;
  char32_t replacement_char_;
  std::string replacement_;
};

// Split on a literal string (HF runs the escaped string as a regex: the same leftmost,
// non-overlapping matches) or a regex: a hand-written scanner when one exists for the pattern
// (split_scanner.h), else Oniguruma.
class Split final : public PreTokenizer {
 public:
  Split(std::string literal, Behavior behavior, bool invert)
      : literal_(std::move(literal)), behavior_(behavior), invert_(invert) {
    // The empty string is the empty regex, which matches between every two characters.
    if (literal_.empty()) regex_ = std::make_unique<OnigRegex>("", "(empty split string)");
  }
  Split(const std::string& regex, const std::string& path, Behavior behavior, bool invert)
      : scanner_(FindSplitScanner(regex)), behavior_(behavior), invert_(invert), regex_source_(regex) {
    if (scanner_.scan == nullptr) regex_ = std::make_unique<OnigRegex>(regex, path);
  }
  // Isolated Splits applied in turn, as one scanner (FindSequenceScanner).
  explicit Split(SplitScanner fused) : scanner_(fused), behavior_(Behavior::kIsolated), invert_(false) {}
  // The regex of an Isolated, non-inverted regex Split (what a fused scanner may stand in for), or "".
  std::string_view IsolatedRegex() const {
    return behavior_ == Behavior::kIsolated && !invert_ ? std::string_view(regex_source_) : std::string_view();
  }
  // PreTokenize's fast path below, for every span.
  AsScan AsScanner() const override {
    if (behavior_ != Behavior::kIsolated || scanner_.scan_into == nullptr || !scanner_.tiles) return {};
    return {scanner_.scan_into, false};
  }
  void PreTokenize(Pieces& pieces) const override {
    // Per-thread scratch, and room for the output: growing these from empty on every call was a
    // third of a warm Llama-3 encode (reallocation, malloc, free).
    thread_local std::vector<Range> matches;
    thread_local std::vector<SplitSegment> segs;
    std::vector<Range>& out = pieces.spare;
    out.clear();
    const std::string_view text = pieces.text;
    for (const Range& r : pieces.ranges) {
      const std::string_view piece = text.substr(r.first, r.second - r.first);
      if (piece.empty()) continue;
      matches.clear();
      Find(piece, matches);
      if (behavior_ == Behavior::kIsolated && pieces.ranges.size() == 1 && r.first == 0 &&
          (scanner_.tiles || MatchesTile(matches, piece.size()))) {
        // The usual case (one span that the matches cover): the matches are the pieces as they are.
        pieces.ranges.swap(matches);
        return;
      }
      if (behavior_ == Behavior::kIsolated) {
        // Every match and every stretch between matches is a piece of its own (invert changes only
        // which is which), empty ones dropped: no segments, and no branch per piece.
        size_t w = out.size();
        out.resize(w + 2 * matches.size() + 1);
        Range* o = out.data();
        uint32_t prev = 0;
        for (const Range& m : matches) {
          o[w] = {r.first + prev, r.first + m.first};
          w += prev != m.first;
          o[w] = {r.first + m.first, r.first + m.second};
          w += m.first != m.second;
          prev = m.second;
        }
        o[w] = {r.first + prev, r.second};
        w += prev != piece.size();
        out.resize(w);
        continue;
      }
      // HF's find_matches: the matches and the text between them, in order, covering the piece.
      segs.clear();
      uint32_t prev = 0;
      for (const Range& m : matches) {
        if (prev != m.first) segs.push_back({{r.first + prev, r.first + m.first}, invert_});
        segs.push_back({{r.first + m.first, r.first + m.second}, !invert_});
        prev = m.second;
      }
      if (prev != piece.size()) segs.push_back({{r.first + prev, r.second}, invert_});
      ApplyBehaviorNonEmpty(segs, behavior_, out);
    }
    pieces.ranges.swap(out);
  }

 private:
  void Find(std::string_view piece, std::vector<Range>& matches) const {
    if (scanner_.scan != nullptr) return scanner_.scan(piece, matches);
    if (regex_) return regex_->FindMatches(piece, matches);
    for (size_t hit = piece.find(literal_); hit != std::string_view::npos;
         hit = piece.find(literal_, hit + literal_.size()))
      matches.emplace_back(static_cast<uint32_t>(hit), static_cast<uint32_t>(hit + literal_.size()));
  }

  std::string literal_;
  SplitScanner scanner_;
  std::unique_ptr<OnigRegex> regex_;
  Behavior behavior_;
  bool invert_;
  std::string regex_source_;
};

// Replaces the Sequence's leading Isolated regex Splits by one fused scanner when there is one
// for exactly their patterns: a piece is then scanned once, not once per Split.
void FuseLeadingSplits(std::vector<std::unique_ptr<PreTokenizer>>& parts) {
  std::vector<std::string_view> patterns;
  for (const auto& p : parts) {
    const auto* split = dynamic_cast<const Split*>(p.get());
    if (split == nullptr || split->IsolatedRegex().empty()) break;
    patterns.push_back(split->IsolatedRegex());
  }
  if (patterns.size() < 2) return;
  const SplitScanner fused = FindSequenceScanner(patterns);
  if (fused.scan == nullptr) return;
  parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(patterns.size()));
  parts.insert(parts.begin(), std::make_unique<Split>(fused));
}

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void PreTokenize(Pieces& pieces) const override {
    for (const auto& p : parts_) p->PreTokenize(pieces);
  }
  bool ByteLevelOutput() const override { return !parts_.empty() && parts_.back()->ByteLevelOutput(); }
  // One scanner among parts that split nothing.
  AsScan AsScanner() const override {
    AsScan one{nullptr, true};
    for (const auto& p : parts_) {
      const AsScan part = p->AsScanner();
      if (part.identity) continue;
      if (part.scan == nullptr || !one.identity) return {};
      one = part;
    }
    return one;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

PrependScheme ParsePrependScheme(const Json& node, const std::string& path) {
  if (const Json* s = Find(node, "prepend_scheme")) {
    if (!s->is_string()) FieldError(path + ".prepend_scheme", "expected a string");
    const auto v = s->get<std::string>();
    if (v == "always") return PrependScheme::kAlways;
    if (v == "first") return PrependScheme::kFirst;
    if (v == "never") return PrependScheme::kNever;
    FieldError(path + ".prepend_scheme", "unsupported value '" + v + "' (always, first or never)");
  }
  // Files written before prepend_scheme existed carry add_prefix_space instead.
  return GetBool(node, "add_prefix_space", path, true) ? PrependScheme::kAlways : PrependScheme::kNever;
}

char32_t SingleChar(const std::string& s, const std::string& path) {
  const std::u32string cps = utf8::ToCodePoints(s);
  if (cps.size() != 1) FieldError(path, "expected exactly one character");
  return cps[0];
}

using PreTokenizerFactory = std::unique_ptr<PreTokenizer> (*)(const Json&, const std::string&);

const ComponentEntry<PreTokenizerFactory> kPreTokenizers[] = {
    {"ByteLevel",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {"add_prefix_space", "trim_offsets", "use_regex"});
       return std::make_unique<ByteLevel>(GetBool(node, "add_prefix_space", path, true),
                                          GetBool(node, "use_regex", path, true));
     }},
    {"BertPreTokenizer", [](const Json&, const std::string&) -> std::unique_ptr<PreTokenizer> {
       return std::make_unique<BertPreTokenizer>();
     }},
    {"WhitespaceSplit", [](const Json&, const std::string&) -> std::unique_ptr<PreTokenizer> {
       return std::make_unique<WhitespaceSplit>();
     }},
    // HF runs Rust's regex \w+|[^\w\s]+ and keeps its matches. Rust's \w is Unicode's word class
    // (Alphabetic, marks, decimal digits, connector punctuation, the two joiners), wider than
    // Oniguruma's \w (no letter numbers such as U+216B, no joiners): spelled out here.
    {"Whitespace",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {});
       static const std::string kWord = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\x{200C}\\x{200D}";
       return std::make_unique<Split>("[" + kWord + "]+|[^" + kWord + "\\s]+", path, Behavior::kRemoved,
                                      /*invert=*/true);
     }},
    {"CharDelimiterSplit",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {"delimiter"});
       return std::make_unique<CharDelimiterSplit>(SingleChar(GetString(node, "delimiter", path), path + ".delimiter"));
     }},
    {"Punctuation",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {"behavior"});
       return std::make_unique<Punctuation>(Find(node, "behavior") ? ParseBehavior(node, path)
                                                                   : Behavior::kIsolated);
     }},
    {"Digits",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {"individual_digits"});
       return std::make_unique<Digits>(GetBool(node, "individual_digits", path, false));
     }},
    {"Metaspace",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {"replacement", "prepend_scheme", "add_prefix_space", "split", "str_rep"});
       const std::string rep = GetString(node, "replacement", path);
       return std::make_unique<Metaspace>(SingleChar(rep, path + ".replacement"), ParsePrependScheme(node, path),
                                          GetBool(node, "split", path, true));
     }},
    {"Split",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       AllowOnlyKeys(node, path, {"pattern", "behavior", "invert"});
       const Json* pattern = Find(node, "pattern");
       if (pattern == nullptr || !pattern->is_object()) FieldError(path + ".pattern", "missing pattern object");
       const Behavior behavior = ParseBehavior(node, path);
       const bool invert = GetBool(node, "invert", path, false);
       if (pattern->contains("Regex")) {
         const std::string where = path + ".pattern.Regex";
         return std::make_unique<Split>(GetString(*pattern, "Regex", path + ".pattern"), where, behavior, invert);
       }
       return std::make_unique<Split>(GetString(*pattern, "String", path + ".pattern"), behavior, invert);
     }},
    {"UnicodeScripts", MakeUnicodeScripts},
    {"FixedLength", MakeFixedLength},
    {"Sequence",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PreTokenizer> {
       const Json* list = Find(node, "pretokenizers");
       if (list == nullptr || !list->is_array()) FieldError(path + ".pretokenizers", "expected an array");
       std::vector<std::unique_ptr<PreTokenizer>> parts;
       for (size_t i = 0; i < list->size(); ++i) {
         const std::string p = path + ".pretokenizers[" + std::to_string(i) + "]";
         parts.push_back(MakePreTokenizer((*list)[i], p));
         if (parts.back()->ByteLevelOutput() && i + 1 != list->size())
           FieldError(p, "ByteLevel must be the last pre-tokenizer of a Sequence in this library");
       }
       FuseLeadingSplits(parts);
       return std::make_unique<Sequence>(std::move(parts));
     }},
};

}  // namespace

std::unique_ptr<PreTokenizer> MakePreTokenizer(const Json& node, const std::string& path) {
  return FindComponent(kPreTokenizers, node, path, "pre-tokenizer")(node, path);
}

}  // namespace triton_studio::tok
