#include "decoders.h"

#include "byte_level.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

using Pieces = std::vector<std::string>;

void ReplaceAll(const std::string& in, const std::string& pattern, const std::string& content, std::string& out) {
  size_t pos = 0;
  for (size_t hit; (hit = in.find(pattern, pos)) != std::string::npos; pos = hit + pattern.size()) {
    out.append(in, pos, hit - pos);
    out.append(content);
  }
  out.append(in, pos, std::string::npos);
}

// ByteLevel: every token's characters map back to bytes through GPT-2's alphabet (a token with a
// character outside it contributes its raw UTF-8), and the joined bytes are read as lossy UTF-8.
// Output is one string, so downstream stages see chunks.
class ByteLevelStage final : public DecoderStage {
 public:
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    for (const std::string& token : in) AppendTokenBytes(token, st.pending);
    const size_t keep = utf8::IncompleteTail(st.pending);
    if (st.pending.size() == keep) return;
    std::string text;
    utf8::AppendLossy(std::string_view(st.pending).substr(0, st.pending.size() - keep), text);
    st.pending.erase(0, st.pending.size() - keep);
    out.push_back(std::move(text));
  }
  void Finish(StageState& st, Pieces& out) const override {
    if (st.pending.empty()) return;
    std::string text;
    utf8::AppendLossy(st.pending, text);
    st.pending.clear();
    out.push_back(std::move(text));
  }

 private:
  static void AppendTokenBytes(const std::string& token, std::string& bytes) {
    const size_t start = bytes.size();
    for (size_t i = 0; i < token.size();) {
      const size_t n = utf8::ValidSequenceLength(token, i);
      const int b = n == 0 ? -1 : byte_level::CharToByte(utf8::DecodeAt(token, i, n));
      if (b < 0) {
        bytes.resize(start);
        bytes.append(token);
        return;
      }
      bytes.push_back(static_cast<char>(b));
      i += n;
    }
  }
};

class ReplaceStage final : public DecoderStage {
 public:
  ReplaceStage(std::string pattern, std::string content, bool fused)
      : pattern_(std::move(pattern)), content_(std::move(content)), fused_(fused) {}
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    if (!fused_) {
      for (const std::string& token : in) {
        std::string r;
        ReplaceAll(token, pattern_, content_, r);
        out.push_back(std::move(r));
      }
      return;
    }
    for (const std::string& chunk : in) st.pending.append(chunk);
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
    if (!r.empty()) out.push_back(std::move(r));
  }
  void Finish(StageState& st, Pieces& out) const override {
    if (!fused_ || st.pending.empty()) return;
    std::string r;
    ReplaceAll(st.pending, pattern_, content_, r);
    st.pending.clear();
    out.push_back(std::move(r));
  }

 private:
  std::string pattern_, content_;
  bool fused_;
};

// ByteFallback: runs of <0xXX> tokens become their bytes if those are valid UTF-8, else one U+FFFD
// per byte; so a run is held until a non-byte token (or the end) closes it.
class ByteFallbackStage final : public DecoderStage {
 public:
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    for (std::string& token : in) {
      int byte = ByteOf(token);
      if (byte >= 0) {
        st.pending.push_back(static_cast<char>(byte));
        continue;
      }
      Flush(st, out);
      out.push_back(std::move(token));
    }
  }
  void Finish(StageState& st, Pieces& out) const override { Flush(st, out); }

 private:
  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // "<0xHH>" -> HH (Rust's u8::from_str_radix also takes a "+" sign before one digit).
  static int ByteOf(const std::string& t) {
    if (t.size() != 6 || t[0] != '<' || t[1] != '0' || t[2] != 'x' || t[5] != '>') return -1;
    const int hi = HexDigit(t[3]), lo = HexDigit(t[4]);
    if (t[3] == '+' && lo >= 0) return lo;
    if (hi < 0 || lo < 0) return -1;
    return hi * 16 + lo;
  }
  static void Flush(StageState& st, Pieces& out) {
    if (st.pending.empty()) return;
    if (utf8::IsValid(st.pending)) {
      out.push_back(std::move(st.pending));
    } else {
      for (size_t i = 0; i < st.pending.size(); ++i) out.emplace_back(utf8::kReplacementUtf8);
    }
    st.pending.clear();
  }
};

class FuseStage final : public DecoderStage {
 public:
  void Push(StageState&, Pieces& in, Pieces& out) const override {
    for (std::string& piece : in) out.push_back(std::move(piece));
  }
};

// Strip: removes up to `start` leading and `stop` trailing `content` characters, per token, or of
// the whole string after a fusing stage.
class StripStage final : public DecoderStage {
 public:
  StripStage(char32_t content, uint64_t start, uint64_t stop, bool fused)
      : content_(content), start_(start), stop_(stop), fused_(fused) {}
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    if (!fused_) {
      for (const std::string& token : in) {
        std::u32string cps = utf8::ToCodePoints(token);
        size_t b = 0, e = cps.size();
        while (b < start_ && b < cps.size() && cps[b] == content_) ++b;
        for (size_t k = 0; k < stop_ && e > 0 && cps[e - 1] == content_; ++k) --e;
        out.push_back(b <= e ? utf8::FromCodePoints(std::u32string_view(cps).substr(b, e - b)) : std::string());
      }
      return;
    }
    for (const std::string& chunk : in) {
      std::u32string cps = utf8::ToCodePoints(chunk);
      size_t b = 0;
      while (!st.done && b < cps.size()) {
        if (st.seen < start_ && cps[b] == content_) {
          ++st.seen;
          ++b;
        } else {
          st.done = true;
        }
      }
      std::string text = utf8::FromCodePoints(std::u32string_view(cps).substr(b));
      if (stop_ == 0) {
        if (!text.empty()) out.push_back(std::move(text));
        continue;
      }
      // Hold back the trailing run of `content` characters: they are stripped if the string ends.
      st.pending.append(text);
      size_t cut = st.pending.size();
      std::string content_utf8;
      utf8::Append(content_, content_utf8);
      while (cut >= content_utf8.size() &&
             st.pending.compare(cut - content_utf8.size(), content_utf8.size(), content_utf8) == 0)
        cut -= content_utf8.size();
      if (cut > 0) {
        out.push_back(st.pending.substr(0, cut));
        st.pending.erase(0, cut);
      }
    }
  }
  void Finish(StageState& st, Pieces& out) const override {
    if (!fused_ || st.pending.empty()) return;
    std::u32string cps = utf8::ToCodePoints(st.pending);
    size_t e = cps.size();
    for (size_t k = 0; k < stop_ && e > 0 && cps[e - 1] == content_; ++k) --e;
    out.push_back(utf8::FromCodePoints(std::u32string_view(cps).substr(0, e)));
    st.pending.clear();
  }

 private:
  char32_t content_;
  uint64_t start_, stop_;
  bool fused_;
};

// Metaspace: the replacement character becomes a space, except in the first token where (unless
// the prepend scheme is "never") every occurrence is dropped.
class MetaspaceStage final : public DecoderStage {
 public:
  MetaspaceStage(std::string replacement, bool strip_first, bool fused)
      : replacement_(std::move(replacement)), strip_first_(strip_first), fused_(fused) {}
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    for (const std::string& token : in) {
      const bool first = fused_ || st.seen++ == 0;
      std::string r;
      ReplaceAll(token, replacement_, first && strip_first_ ? "" : " ", r);
      out.push_back(std::move(r));
    }
  }

 private:
  std::string replacement_;
  bool strip_first_, fused_;
};

// WordPiece: continuation tokens lose their prefix, others gain a leading space (except the
// first), and `cleanup` undoes BERT's spacing around punctuation within each token.
class WordPieceStage final : public DecoderStage {
 public:
  WordPieceStage(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    for (std::string& token : in) {
      std::string t;
      if (st.seen++ != 0) {
        if (token.compare(0, prefix_.size(), prefix_) == 0) {
          t = token.substr(prefix_.size());
        } else {
          t = " " + token;
        }
      } else {
        t = std::move(token);
      }
      if (cleanup_) t = Cleanup(t);
      out.push_back(std::move(t));
    }
  }

  static std::string Cleanup(const std::string& s) {
    static const std::pair<const char*, const char*> kRules[] = {
        {" .", "."},   {" ?", "?"},   {" !", "!"},         {" ,", ","},   {" ' ", "'"},  {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    std::string cur = s, next;
    for (const auto& [from, to] : kRules) {
      if (cur.find(from) == std::string::npos) continue;
      next.clear();
      ReplaceAll(cur, from, to, next);
      cur.swap(next);
    }
    return cur;
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

// No decoder: HF joins the tokens with single spaces.
class JoinWithSpacesStage final : public DecoderStage {
 public:
  void Push(StageState& st, Pieces& in, Pieces& out) const override {
    for (std::string& token : in) out.push_back(st.seen++ == 0 ? std::move(token) : " " + token);
  }
};

void Build(const Json& node, const std::string& path, bool& fused,
           std::vector<std::unique_ptr<DecoderStage>>& stages) {
  const std::string type = TypeOf(node, path);
  const auto need_tokens = [&](const char* name) {
    if (fused)
      FieldError(path, std::string(name) + " after a fusing decoder (Fuse, ByteLevel) is not supported");
  };
  if (type == "Sequence") {
    const Json* list = Find(node, "decoders");
    if (list == nullptr || !list->is_array()) FieldError(path + ".decoders", "expected an array");
    for (size_t i = 0; i < list->size(); ++i)
      Build((*list)[i], path + ".decoders[" + std::to_string(i) + "]", fused, stages);
    return;
  }
  if (type == "ByteLevel") {
    AllowOnlyKeys(node, path, {"add_prefix_space", "trim_offsets", "use_regex"});
    need_tokens("ByteLevel");
    stages.push_back(std::make_unique<ByteLevelStage>());
    fused = true;
    return;
  }
  if (type == "Replace") {
    AllowOnlyKeys(node, path, {"pattern", "content"});
    const Json* pattern = Find(node, "pattern");
    if (pattern == nullptr || !pattern->is_object()) FieldError(path + ".pattern", "missing pattern object");
    if (pattern->contains("Regex"))
      FieldError(path + ".pattern.Regex", "unsupported: only literal {\"String\": ...} patterns are implemented");
    const std::string p = GetString(*pattern, "String", path + ".pattern");
    if (p.empty()) FieldError(path + ".pattern.String", "an empty pattern is not supported");
    stages.push_back(std::make_unique<ReplaceStage>(p, GetString(node, "content", path), fused));
    return;
  }
  if (type == "ByteFallback") {
    need_tokens("ByteFallback");
    stages.push_back(std::make_unique<ByteFallbackStage>());
    return;
  }
  if (type == "Fuse") {
    stages.push_back(std::make_unique<FuseStage>());
    fused = true;
    return;
  }
  if (type == "Strip") {
    AllowOnlyKeys(node, path, {"content", "start", "stop"});
    const std::u32string content = utf8::ToCodePoints(GetString(node, "content", path));
    if (content.size() != 1) FieldError(path + ".content", "expected exactly one character");
    stages.push_back(std::make_unique<StripStage>(content[0], GetUint(node, "start", path, 0),
                                                  GetUint(node, "stop", path, 0), fused));
    return;
  }
  if (type == "Metaspace") {
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
    return;
  }
  if (type == "WordPiece") {
    AllowOnlyKeys(node, path, {"prefix", "cleanup"});
    need_tokens("WordPiece");
    const std::string prefix_default = "##";
    stages.push_back(std::make_unique<WordPieceStage>(GetString(node, "prefix", path, &prefix_default),
                                                      GetBool(node, "cleanup", path, true)));
    return;
  }
  FieldError(path + ".type", "unsupported decoder '" + type +
                                 "' (supported: ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, "
                                 "WordPiece, Sequence)");
}

}  // namespace

DecoderChain DecoderChain::Make(const Json* node, const std::string& path) {
  DecoderChain chain;
  if (node == nullptr) {
    chain.stages_.push_back(std::make_unique<JoinWithSpacesStage>());
    return chain;
  }
  bool fused = false;
  Build(*node, path, fused, chain.stages_);
  return chain;
}

void DecoderChain::Push(std::vector<StageState>& st, std::vector<std::string>& tokens, std::string& text) const {
  Pieces in = std::move(tokens), out;
  for (size_t i = 0; i < stages_.size(); ++i) {
    out.clear();
    stages_[i]->Push(st[i], in, out);
    in.swap(out);
  }
  for (const std::string& piece : in) text.append(piece);
}

void DecoderChain::Finish(std::vector<StageState>& st, std::string& text) const {
  Pieces in, out;
  for (size_t i = 0; i < stages_.size(); ++i) {
    out.clear();
    stages_[i]->Push(st[i], in, out);
    stages_[i]->Finish(st[i], out);
    in.swap(out);
  }
  for (const std::string& piece : in) text.append(piece);
}

}  // namespace triton_studio::tok
