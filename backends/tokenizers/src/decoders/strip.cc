// HF's Strip decoder, token by token or (after a fusing decoder) of the whole text.
#include "decoders/stages.h"

#include "component_table.h"
#include "utf8.h"

namespace triton_studio::tok::decoders {
namespace {

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

}  // namespace

void BuildStrip(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  AllowOnlyKeys(node, path, {"content", "start", "stop"});
  std::string content = GetString(node, "content", path);
  if (utf8::ToCodePoints(content).size() != 1) FieldError(path + ".content", "expected exactly one character");
  const uint64_t start = GetUint(node, "start", path, 0), stop = GetUint(node, "stop", path, 0);
  if (fused) {
    stages.push_back(std::make_unique<FusedStripStage>(std::move(content), start, stop));
  } else {
    stages.push_back(std::make_unique<StripStage>(std::move(content), start, stop));
  }
}

}  // namespace triton_studio::tok::decoders
