// HF's decoders as incremental stages (see decoders.h), and the decoder chain built from
// tokenizer.json.
#include "decoders.h"

#include <algorithm>
#include <cstring>

#include "byte_level.h"
#include "component_table.h"
#include "onig_regex.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

// Appends every piece to `out` (one resize, then plain copies: pieces are mostly a few bytes).
void AppendAll(const DecodedPieces& pieces, std::string& out) {
  size_t size = out.size();
  for (std::string_view piece : pieces) size += piece.size();
  size_t at = out.size();
  out.resize(size);
  for (std::string_view piece : pieces) {
    std::memcpy(out.data() + at, piece.data(), piece.size());
    at += piece.size();
  }
}

void ReplaceAll(std::string_view in, std::string_view pattern, std::string_view content, std::string& out) {
  size_t pos = 0;
  for (size_t hit; (hit = in.find(pattern, pos)) != std::string_view::npos; pos = hit + pattern.size()) {
    out.append(in, pos, hit - pos);
    out.append(content);
  }
  out.append(in, pos, std::string_view::npos);
}

// ByteLevel, first half: every token's characters map back to bytes through GPT-2's alphabet (a
// token with a character outside it contributes its raw UTF-8).
class ByteLevelBytesStage final : public TokenLocalStage {
 public:
  std::string MapToken(std::string_view token, bool) const override {
    std::string bytes;
    for (size_t i = 0; i < token.size();) {
      const size_t n = utf8::ValidSequenceLength(token, i);
      const int b = n == 0 ? -1 : byte_level::CharToByte(utf8::DecodeAt(token, i, n));
      if (b < 0) return std::string(token);
      bytes.push_back(static_cast<char>(b));
      i += n;
    }
    return bytes;
  }
};

// ByteLevel, second half: the joined bytes are read as lossy UTF-8, holding back only an
// incomplete trailing sequence. Output is one string, so downstream stages see chunks.
class LossyUtf8JoinStage final : public DecoderStage {
 public:
  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    AppendAll(in, st.pending);
    const size_t keep = utf8::IncompleteTail(st.pending);
    if (st.pending.size() == keep) return;
    std::string text;
    utf8::AppendLossy(std::string_view(st.pending).substr(0, st.pending.size() - keep), text);
    st.pending.erase(0, st.pending.size() - keep);
    out.push_back(arena.Keep(std::move(text)));
  }
  void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const override {
    if (st.pending.empty()) return;
    std::string text;
    utf8::AppendLossy(st.pending, text);
    st.pending.clear();
    out.push_back(arena.Keep(std::move(text)));
  }
};

class ReplaceStage final : public TokenLocalStage {
 public:
  ReplaceStage(std::string pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  std::string MapToken(std::string_view token, bool) const override {
    std::string r;
    ReplaceAll(token, pattern_, content_, r);
    return r;
  }

 private:
  std::string pattern_, content_;
};

// Replace after a fusing stage: an occurrence may span chunks.
class FusedReplaceStage final : public DecoderStage {
 public:
  FusedReplaceStage(std::string pattern, std::string content)
      : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    AppendAll(in, st.pending);
    // Complete occurrences are final (later text cannot create an earlier leftmost match).
    std::string r;
    size_t pos = 0;
    for (size_t hit; (hit = st.pending.find(pattern_, pos)) != std::string::npos; pos = hit + pattern_.size()) {
      r.append(st.pending, pos, hit - pos);
      r.append(content_);
    }
    // Of the rest, hold back a suffix that later chunks may complete into an occurrence.
    const size_t rest = st.pending.size() - pos;
    size_t hold = 0;
    for (size_t k = std::min(pattern_.size() - 1, rest); k > 0; --k) {
      if (st.pending.compare(st.pending.size() - k, k, pattern_, 0, k) == 0) {
        hold = k;
        break;
      }
    }
    r.append(st.pending, pos, rest - hold);
    st.pending.erase(0, st.pending.size() - hold);
    if (!r.empty()) out.push_back(arena.Keep(std::move(r)));
  }
  void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const override {
    if (st.pending.empty()) return;
    std::string r;
    ReplaceAll(st.pending, pattern_, content_, r);
    st.pending.clear();
    out.push_back(arena.Keep(std::move(r)));
  }

 private:
  std::string pattern_, content_;
};

// ByteFallback: runs of <0xXX> tokens become their bytes if those are valid UTF-8, else one U+FFFD
// per byte; so a run is held until a non-byte token (or the end) closes it.
// Followed by Fuse (as in every Llama/Mistral file), it fuses itself: one chunk out per call, with
// no list of per-token pieces in between.
class ByteFallbackStage final : public DecoderStage {
 public:
  void FuseOutput() { fuse_ = true; }

  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    if (fuse_) return PushFused(st, in, out, arena);
    if (st.pending.empty() && std::none_of(in.begin(), in.end(), [](std::string_view t) { return ByteOf(t) >= 0; })) {
      out.swap(in);  // the common case: no byte tokens at all
      return;
    }
    for (std::string_view token : in) {
      const int byte = ByteOf(token);
      if (byte >= 0) {
        st.pending.push_back(static_cast<char>(byte));
        continue;
      }
      Flush(st, out, arena);
      out.push_back(token);
    }
  }
  void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const override {
    if (!fuse_) return Flush(st, out, arena);
    std::string chunk;
    FlushInto(st, chunk);
    if (!chunk.empty()) out.push_back(arena.Keep(std::move(chunk)));
  }

 private:
  void PushFused(StageState& st, const DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const {
    size_t bound = 0;  // a byte token's 6 characters exceed the 3 bytes of a U+FFFD it may become
    for (std::string_view token : in) bound += token.size();
    std::string chunk;
    chunk.reserve(bound);
    for (std::string_view token : in) {
      const int byte = ByteOf(token);
      if (byte >= 0) {
        st.pending.push_back(static_cast<char>(byte));
      } else {
        FlushInto(st, chunk);
        chunk.append(token);
      }
    }
    if (!chunk.empty()) out.push_back(arena.Keep(std::move(chunk)));
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // "<0xHH>" -> HH (Rust's u8::from_str_radix also takes a "+" sign before one digit).
  static int ByteOf(std::string_view t) {
    if (t.size() != 6 || t[0] != '<' || t[1] != '0' || t[2] != 'x' || t[5] != '>') return -1;
    const int hi = HexDigit(t[3]), lo = HexDigit(t[4]);
    if (t[3] == '+' && lo >= 0) return lo;
    if (hi < 0 || lo < 0) return -1;
    return hi * 16 + lo;
  }
  static void FlushInto(StageState& st, std::string& chunk) {
    if (st.pending.empty()) return;
    if (utf8::IsValid(st.pending)) {
      chunk.append(st.pending);
    } else {
      for (size_t i = 0; i < st.pending.size(); ++i) chunk.append(utf8::kReplacementUtf8);
    }
    st.pending.clear();
  }
  static void Flush(StageState& st, DecodedPieces& out, PieceArena& arena) {
    if (st.pending.empty()) return;
    if (utf8::IsValid(st.pending)) {
      out.push_back(arena.Keep(std::move(st.pending)));
    } else {
      out.insert(out.end(), st.pending.size(), utf8::kReplacementUtf8);
    }
    st.pending.clear();
  }

  bool fuse_ = false;
};

// Fuse: one chunk out per call (later stages then work on a few long chunks, not many tokens).
class FuseStage final : public DecoderStage {
 public:
  void Push(StageState&, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    if (in.size() <= 1) {
      out.swap(in);
      return;
    }
    std::string joined;
    AppendAll(in, joined);
    out.push_back(arena.Keep(std::move(joined)));
  }
};

// Strip: removes up to `start` leading and `stop` trailing `content` characters of every token.
// DecodedPieces are valid UTF-8, so comparing the character's encoding byte-wise compares characters.
class StripStage final : public TokenLocalStage {
 public:
  StripStage(std::string content, uint64_t start, uint64_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  std::string MapToken(std::string_view token, bool) const override {
    const size_t c = content_.size();
    size_t b = 0, e = token.size();
    for (uint64_t k = 0; k < start_ && token.compare(b, c, content_) == 0; ++k) b += c;
    for (uint64_t k = 0; k < stop_ && e >= c && token.compare(e - c, c, content_) == 0; ++k) e -= c;
    return b <= e ? std::string(token.substr(b, e - b)) : std::string();
  }

 private:
  std::string content_;
  uint64_t start_, stop_;
};

// Strip after a fusing stage, of the whole string: leading characters are dropped as they come; a
// trailing run is held back, since it is stripped only if the string ends there.
class FusedStripStage final : public DecoderStage {
 public:
  FusedStripStage(std::string content, uint64_t start, uint64_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    const size_t c = content_.size();
    for (std::string_view chunk : in) {
      size_t b = 0;
      while (!st.done && b < chunk.size()) {
        if (st.seen < start_ && chunk.compare(b, c, content_) == 0) {
          ++st.seen;
          b += c;
        } else {
          st.done = true;
        }
      }
      const std::string_view text = chunk.substr(b);
      if (stop_ == 0) {
        if (!text.empty()) out.push_back(text);
        continue;
      }
      st.pending.append(text);
      size_t cut = st.pending.size();
      while (cut >= c && st.pending.compare(cut - c, c, content_) == 0) cut -= c;
      if (cut > 0) {
        out.push_back(arena.Keep(st.pending.substr(0, cut)));
        st.pending.erase(0, cut);
      }
    }
  }
  void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const override {
    if (st.pending.empty()) return;
    const size_t c = content_.size();
    size_t e = st.pending.size();
    for (uint64_t k = 0; k < stop_ && e >= c && st.pending.compare(e - c, c, content_) == 0; ++k) e -= c;
    out.push_back(arena.Keep(st.pending.substr(0, e)));
    st.pending.clear();
  }

 private:
  std::string content_;
  uint64_t start_, stop_;
};

// Metaspace: the replacement character becomes a space, except in the first token (after a
// fusing stage: in every chunk) where, unless the prepend scheme is "never", it is dropped.
class MetaspaceStage final : public TokenLocalStage {
 public:
  MetaspaceStage(std::string replacement, bool strip_first, bool fused)
      : replacement_(std::move(replacement)), strip_first_(strip_first), fused_(fused) {}
  bool FirstDiffers() const override { return strip_first_ && !fused_; }
  std::string MapToken(std::string_view token, bool first) const override {
    std::string r;
    ReplaceAll(token, replacement_, (first || fused_) && strip_first_ ? "" : " ", r);
    return r;
  }

 private:
  std::string replacement_;
  bool strip_first_, fused_;
};

// HF's wordpiece::cleanup: BERT's spacing around punctuation and English contractions undone.
std::string WordPieceCleanup(std::string cur) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" .", "."},   {" ?", "?"},   {" !", "!"},         {" ,", ","},   {" ' ", "'"},  {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  std::string next;
  for (const auto& [from, to] : kRules) {
    if (cur.find(from) == std::string::npos) continue;
    next.clear();
    ReplaceAll(cur, from, to, next);
    cur.swap(next);
  }
  return cur;
}

// WordPiece: continuation tokens lose their prefix, others gain a leading space (except the
// first), and `cleanup` undoes BERT's spacing around punctuation within each token.
class WordPieceStage final : public TokenLocalStage {
 public:
  WordPieceStage(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  bool FirstDiffers() const override { return true; }
  std::string MapToken(std::string_view token, bool first) const override {
    std::string t;
    if (first) {
      t = token;
    } else if (token.compare(0, prefix_.size(), prefix_) == 0) {
      t = token.substr(prefix_.size());
    } else {
      t = " ";
      t.append(token);
    }
    return cleanup_ ? WordPieceCleanup(t) : t;
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

// Replace with a regex (or the empty string, HF's empty regex), token by token: each match,
// empty ones included, becomes the content.
class RegexReplaceStage final : public TokenLocalStage {
 public:
  RegexReplaceStage(const std::string& pattern, const std::string& path, std::string content)
      : regex_(std::make_unique<OnigRegex>(pattern, path)), content_(std::move(content)) {}
  std::string MapToken(std::string_view token, bool) const override {
    std::vector<Range> matches;
    regex_->FindMatches(token, matches);
    std::string r;
    size_t pos = 0;
    for (const Range& m : matches) {
      r.append(token, pos, m.first - pos);
      r.append(content_);
      pos = m.second;
    }
    r.append(token, pos, std::string_view::npos);
    return r;
  }

 private:
  std::unique_ptr<OnigRegex> regex_;
  std::string content_;
};

// BPEDecoder: every occurrence of the end-of-word suffix becomes a space, except in the last
// token, where it goes; so each token waits for the next (or the end) to know which it is.
class BpeSuffixStage final : public DecoderStage {
 public:
  explicit BpeSuffixStage(std::string suffix) : suffix_(std::move(suffix)) {}
  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    for (std::string_view token : in) {
      if (st.done) Emit(st.pending, " ", out, arena);
      st.pending.assign(token);
      st.done = true;  // a token is held
    }
  }
  void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const override {
    if (st.done) Emit(st.pending, "", out, arena);
    st.pending.clear();
    st.done = false;
  }

 private:
  void Emit(const std::string& token, std::string_view replacement, DecodedPieces& out, PieceArena& arena) const {
    std::string r;
    if (suffix_.empty()) {
      // Rust's str::replace with an empty pattern inserts the replacement around every character.
      for (size_t i = 0; i <= token.size();) {
        r.append(replacement);
        if (i == token.size()) break;
        const size_t n = utf8::ValidSequenceLength(token, i);
        r.append(token, i, n);
        i += n;
      }
    } else {
      ReplaceAll(token, suffix_, replacement, r);
    }
    out.push_back(arena.Keep(std::move(r)));
  }

  std::string suffix_;
};

// CTC: repeated tokens collapse to one, the pad token goes, then (with cleanup) WordPiece's
// cleanup and the word delimiter becomes a space; tokens left empty vanish.
class CtcStage final : public DecoderStage {
 public:
  CtcStage(std::string pad, std::string delimiter, bool cleanup)
      : pad_(std::move(pad)), delimiter_(std::move(delimiter)), cleanup_(cleanup) {}
  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    for (std::string_view token : in) {
      if (st.seen++ > 0 && token == st.pending) continue;
      st.pending.assign(token);
      std::string r;
      ReplaceAll(token, pad_, "", r);
      if (cleanup_) {
        std::string cleaned = WordPieceCleanup(std::move(r));
        r.clear();
        ReplaceAll(cleaned, delimiter_, " ", r);
      }
      if (!r.empty()) out.push_back(arena.Keep(std::move(r)));
    }
  }

 private:
  std::string pad_, delimiter_;
  bool cleanup_;
};

// No decoder: HF joins the tokens with single spaces.
class JoinWithSpacesStage final : public TokenLocalStage {
 public:
  bool FirstDiffers() const override { return true; }
  std::string MapToken(std::string_view token, bool first) const override {
    return first ? std::string(token) : " " + std::string(token);
  }
};

// Builds the stages of one decoder (and of its children, for a Sequence) onto `stages`. `fused`
// says whether an earlier stage already joined the tokens into one text.
void Build(const Json& node, const std::string& path, bool& fused,
           std::vector<std::unique_ptr<DecoderStage>>& stages);

using DecoderFactory = void (*)(const Json&, const std::string&, bool& fused,
                                std::vector<std::unique_ptr<DecoderStage>>& stages);

// Decoders that map tokens one by one cannot follow a stage that joined them into one text.
void RequireTokens(bool fused, const std::string& path, const char* name) {
  if (fused) FieldError(path, std::string(name) + " after a fusing decoder (Fuse, ByteLevel) is not supported");
}

const ComponentEntry<DecoderFactory> kDecoders[] = {
    {"ByteLevel",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"add_prefix_space", "trim_offsets", "use_regex"});
       RequireTokens(fused, path, "ByteLevel");
       stages.push_back(std::make_unique<ByteLevelBytesStage>());
       stages.push_back(std::make_unique<LossyUtf8JoinStage>());
       fused = true;
     }},
    {"Replace",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"pattern", "content"});
       const Json* pattern = Find(node, "pattern");
       if (pattern == nullptr || !pattern->is_object()) FieldError(path + ".pattern", "missing pattern object");
       std::string content = GetString(node, "content", path);
       const bool regex = pattern->contains("Regex");
       const std::string p = GetString(*pattern, regex ? "Regex" : "String", path + ".pattern");
       if (regex || p.empty()) {
         // Per token, as HF; after a fusing stage a match could span chunks not yet seen.
         if (fused) FieldError(path, "a regex Replace after a fusing decoder (Fuse, ByteLevel) is not supported");
         stages.push_back(std::make_unique<RegexReplaceStage>(p, path + ".pattern", std::move(content)));
       } else if (fused) {
         stages.push_back(std::make_unique<FusedReplaceStage>(p, std::move(content)));
       } else {
         stages.push_back(std::make_unique<ReplaceStage>(p, std::move(content)));
       }
     }},
    {"BPEDecoder",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"suffix"});
       const std::string suffix_default = "</w>";
       std::string suffix = GetString(node, "suffix", path, &suffix_default);
       if (fused) {
         // One string: it is the last token, so the suffix simply goes.
         if (suffix.empty()) return;
         stages.push_back(std::make_unique<FusedReplaceStage>(std::move(suffix), ""));
       } else {
         stages.push_back(std::make_unique<BpeSuffixStage>(std::move(suffix)));
       }
     }},
    {"CTC",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"pad_token", "word_delimiter_token", "cleanup"});
       RequireTokens(fused, path, "CTC");
       const std::string pad_default = "<pad>", delimiter_default = "|";
       std::string pad = GetString(node, "pad_token", path, &pad_default);
       std::string delimiter = GetString(node, "word_delimiter_token", path, &delimiter_default);
       if (pad.empty() || delimiter.empty()) FieldError(path, "empty pad_token or word_delimiter_token is not supported");
       stages.push_back(std::make_unique<CtcStage>(std::move(pad), std::move(delimiter), GetBool(node, "cleanup", path, true)));
     }},
    {"ByteFallback",
     [](const Json&, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       RequireTokens(fused, path, "ByteFallback");
       stages.push_back(std::make_unique<ByteFallbackStage>());
     }},
    {"Fuse",
     [](const Json&, const std::string&, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       if (auto* byte_fallback =
               stages.empty() ? nullptr : dynamic_cast<ByteFallbackStage*>(stages.back().get())) {
         byte_fallback->FuseOutput();  // the same output, one stage fewer
       } else {
         stages.push_back(std::make_unique<FuseStage>());
       }
       fused = true;
     }},
    {"Strip",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"content", "start", "stop"});
       std::string content = GetString(node, "content", path);
       if (utf8::ToCodePoints(content).size() != 1) FieldError(path + ".content", "expected exactly one character");
       const uint64_t start = GetUint(node, "start", path, 0), stop = GetUint(node, "stop", path, 0);
       if (fused) {
         stages.push_back(std::make_unique<FusedStripStage>(std::move(content), start, stop));
       } else {
         stages.push_back(std::make_unique<StripStage>(std::move(content), start, stop));
       }
     }},
    {"Metaspace",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"replacement", "prepend_scheme", "add_prefix_space", "split", "str_rep"});
       bool strip_first = GetBool(node, "add_prefix_space", path, true);
       if (const Json* s = Find(node, "prepend_scheme")) {
         if (!s->is_string()) FieldError(path + ".prepend_scheme", "expected a string");
         const auto v = s->get<std::string>();
         if (v != "always" && v != "first" && v != "never")
           FieldError(path + ".prepend_scheme", "unsupported value '" + v + "'");
         strip_first = v != "never";
       }
       stages.push_back(std::make_unique<MetaspaceStage>(GetString(node, "replacement", path), strip_first, fused));
     }},
    {"WordPiece",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       AllowOnlyKeys(node, path, {"prefix", "cleanup"});
       RequireTokens(fused, path, "WordPiece");
       const std::string prefix_default = "##";
       stages.push_back(std::make_unique<WordPieceStage>(GetString(node, "prefix", path, &prefix_default),
                                                         GetBool(node, "cleanup", path, true)));
     }},
    {"Sequence",
     [](const Json& node, const std::string& path, bool& fused, std::vector<std::unique_ptr<DecoderStage>>& stages) {
       const Json* list = Find(node, "decoders");
       if (list == nullptr || !list->is_array()) FieldError(path + ".decoders", "expected an array");
       for (size_t i = 0; i < list->size(); ++i)
         Build((*list)[i], path + ".decoders[" + std::to_string(i) + "]", fused, stages);
     }},
};

void Build(const Json& node, const std::string& path, bool& fused,
           std::vector<std::unique_ptr<DecoderStage>>& stages) {
  FindComponent(kDecoders, node, path, "decoder")(node, path, fused, stages);
}

}  // namespace

DecoderChain DecoderChain::Make(const Json* node, const std::string& path) {
  DecoderChain chain;
  if (node == nullptr) {
    chain.stages_.push_back(std::make_unique<JoinWithSpacesStage>());
  } else {
    bool fused = false;
    Build(*node, path, fused, chain.stages_);
  }
  while (chain.local_ < chain.stages_.size() &&
         dynamic_cast<const TokenLocalStage*>(chain.stages_[chain.local_].get()) != nullptr)
    ++chain.local_;
  return chain;
}

void DecoderChain::Precompute(uint32_t id_limit, const std::function<const std::string*(uint32_t)>& token_of) {
  std::vector<const TokenLocalStage*> local;
  bool first_differs = false;
  for (size_t i = 0; i < local_; ++i) {
    local.push_back(static_cast<const TokenLocalStage*>(stages_[i].get()));
    first_differs = first_differs || local.back()->FirstDiffers();
  }
  const auto map = [&](const std::string& token, bool first) {
    std::string piece = token;
    for (const TokenLocalStage* stage : local) piece = stage->MapToken(piece, first);
    return piece;
  };
  const auto append = [&](const std::string& piece, uint32_t& offset, uint32_t& size) {
    if (pieces_.size() + piece.size() > UINT32_MAX) throw TokenizerError("tokenizer.json: vocabulary too large");
    offset = static_cast<uint32_t>(pieces_.size());
    size = static_cast<uint32_t>(piece.size());
    pieces_.append(piece);
  };
  table_.assign(id_limit, Entry{0, 0, 0, 0});
  pieces_.clear();
  for (uint32_t id = 0; id < id_limit; ++id) {
    const std::string* token = token_of(id);
    if (token == nullptr) continue;
    Entry& e = table_[id];
    append(map(*token, false), e.offset, e.size);
    if (first_differs) {
      append(map(*token, true), e.first_offset, e.first_size);
    } else {
      e.first_offset = e.offset;
      e.first_size = e.size;
    }
  }
}

namespace {

// Piece lists are reused per thread: a decode of a short string would otherwise spend much of its
// time allocating them. Lists grown by a huge decode are released afterwards.
struct PieceLists {
  DecodedPieces in, out;
};
thread_local PieceLists piece_lists;
constexpr size_t kKeptPieces = 1 << 16;

}  // namespace

void DecoderChain::RunFrom(size_t stage, State& st, bool finish, std::string& text) const {
  DecodedPieces& in = piece_lists.in;
  DecodedPieces& out = piece_lists.out;
  PieceArena arena;
  for (size_t i = stage; i < stages_.size(); ++i) {
    out.clear();
    StageState& state = st.stages[i - local_];
    stages_[i]->Push(state, in, out, arena);
    if (finish) stages_[i]->Finish(state, out, arena);
    in.swap(out);
  }
  AppendAll(in, text);
  for (DecodedPieces* list : {&in, &out})
    if (list->capacity() > kKeptPieces) DecodedPieces().swap(*list);
}

void DecoderChain::Push(State& st, const uint32_t* ids, size_t n, std::string& text) const {
  DecodedPieces& in = piece_lists.in;
  in.clear();
  for (size_t i = 0; i < n; ++i) in.push_back(Piece(ids[i], st.tokens++ == 0));
  RunFrom(local_, st, /*finish=*/false, text);
}

void DecoderChain::Finish(State& st, std::string& text) const {
  piece_lists.in.clear();
  RunFrom(local_, st, /*finish=*/true, text);
}

}  // namespace triton_studio::tok
