// HF's Replace decoder: a literal pattern token by token (or across chunks after a fusing
// decoder), or a regex token by token.
#include "decoders/stages.h"

#include <algorithm>

#include "component_table.h"
#include "onig_regex.h"

namespace triton_studio::tok::decoders {
namespace {

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

}  // namespace

std::unique_ptr<DecoderStage> MakeFusedReplace(std::string pattern, std::string content) {
  return std::make_unique<FusedReplaceStage>(std::move(pattern), std::move(content));
}

void BuildReplace(const Json& node, const std::string& path, bool& fused, Stages& stages) {
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
}

}  // namespace triton_studio::tok::decoders
