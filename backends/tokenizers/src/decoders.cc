// HF's decoders as incremental stages (see decoders.h), and the decoder chain built from
// tokenizer.json.
#include "decoders.h"

#include <cstring>

#include "component_table.h"
#include "decoders/stages.h"

namespace triton_studio::tok {
namespace decoders {

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

// Decoders that map tokens one by one cannot follow a stage that joined them into one text.
void RequireTokens(bool fused, const std::string& path, const char* name) {
  if (fused) FieldError(path, std::string(name) + " after a fusing decoder (Fuse, ByteLevel) is not supported");
}

}  // namespace decoders

namespace {

using decoders::AppendAll;
using decoders::Stages;

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
void Build(const Json& node, const std::string& path, bool& fused, Stages& stages);

void BuildSequence(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  const Json* list = Find(node, "decoders");
  if (list == nullptr || !list->is_array()) FieldError(path + ".decoders", "expected an array");
  for (size_t i = 0; i < list->size(); ++i)
    Build((*list)[i], path + ".decoders[" + std::to_string(i) + "]", fused, stages);
}

using DecoderFactory = void (*)(const Json&, const std::string&, bool& fused, Stages& stages);

// One file per decoder family (decoders/), as HF's decoders/ folder.
const ComponentEntry<DecoderFactory> kDecoders[] = {
    {"ByteLevel", decoders::BuildByteLevel},
    {"Replace", decoders::BuildReplace},
    {"BPEDecoder", decoders::BuildBpeDecoder},
    {"CTC", decoders::BuildCtc},
    {"ByteFallback", decoders::BuildByteFallback},
    {"Fuse", decoders::BuildFuse},
    {"Strip", decoders::BuildStrip},
    {"Metaspace", decoders::BuildMetaspace},
    {"WordPiece", decoders::BuildWordPiece},
    {"Sequence", BuildSequence},
};

void Build(const Json& node, const std::string& path, bool& fused, Stages& stages) {
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
