// HF's CTC decoder: repeats collapse, the pad token goes, the word delimiter becomes a space.
#include "decoders/stages.h"

#include "component_table.h"

namespace triton_studio::tok::decoders {
namespace {

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

}  // namespace

void BuildCtc(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  AllowOnlyKeys(node, path, {"pad_token", "word_delimiter_token", "cleanup"});
  RequireTokens(fused, path, "CTC");
  const std::string pad_default = "<pad>", delimiter_default = "|";
  std::string pad = GetString(node, "pad_token", path, &pad_default);
  std::string delimiter = GetString(node, "word_delimiter_token", path, &delimiter_default);
  if (pad.empty() || delimiter.empty()) FieldError(path, "empty pad_token or word_delimiter_token is not supported");
  stages.push_back(std::make_unique<CtcStage>(std::move(pad), std::move(delimiter), GetBool(node, "cleanup", path, true)));
}

}  // namespace triton_studio::tok::decoders
