// HF's BPEDecoder: the end-of-word suffix becomes a space, except at the end.
#include "decoders/stages.h"

#include "component_table.h"
#include "utf8.h"

namespace triton_studio::tok::decoders {
namespace {

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

}  // namespace

void BuildBpeDecoder(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  AllowOnlyKeys(node, path, {"suffix"});
  const std::string suffix_default = "</w>";
  std::string suffix = GetString(node, "suffix", path, &suffix_default);
  if (fused) {
    // One string: it is the last token, so the suffix simply goes.
    if (suffix.empty()) return;
    stages.push_back(MakeFusedReplace(std::move(suffix), ""));
  } else {
    stages.push_back(std::make_unique<BpeSuffixStage>(std::move(suffix)));
  }
}

}  // namespace triton_studio::tok::decoders
