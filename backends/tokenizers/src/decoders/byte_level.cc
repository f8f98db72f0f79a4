// HF's ByteLevel decoder: GPT-2's alphabet back to bytes, then those bytes as (lossy) UTF-8.
#include "decoders/stages.h"

#include "component_table.h"
#include "byte_level.h"
#include "utf8.h"

namespace triton_studio::tok::decoders {
namespace {

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

}  // namespace

void BuildByteLevel(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  AllowOnlyKeys(node, path, {"add_prefix_space", "trim_offsets", "use_regex"});
  RequireTokens(fused, path, "ByteLevel");
  stages.push_back(std::make_unique<ByteLevelBytesStage>());
  stages.push_back(std::make_unique<LossyUtf8JoinStage>());
  fused = true;
}

}  // namespace triton_studio::tok::decoders
