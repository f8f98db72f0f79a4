// What the decoder files share (one file per HF decoder family, as HF's decoders/ folder): the
// helpers their stages use, and each family's builder, which decoders.cc's table of decoder
// types calls with the tokenizer.json node. A builder appends its stages; `fused` says whether an
// earlier stage already joined the tokens into one text, and a builder that joins sets it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "decoders.h"

namespace triton_studio::tok::decoders {

using Stages = std::vector<std::unique_ptr<DecoderStage>>;

// Appends every piece to `out` (one resize, then plain copies: pieces are mostly a few bytes).
void AppendAll(const DecodedPieces& pieces, std::string& out);
// `in` with every occurrence of `pattern` (non-empty) replaced by `content`, into `out`.
void ReplaceAll(std::string_view in, std::string_view pattern, std::string_view content, std::string& out);
// A FieldError when a token-by-token decoder follows one that joined the tokens.
void RequireTokens(bool fused, const std::string& path, const char* name);
// HF's wordpiece::cleanup: BERT's spacing around punctuation and English contractions undone.
std::string WordPieceCleanup(std::string cur);
// A literal Replace over a joined text (an occurrence may span chunks); BPEDecoder's too.
std::unique_ptr<DecoderStage> MakeFusedReplace(std::string pattern, std::string content);

void BuildByteLevel(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildReplace(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildBpeDecoder(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildCtc(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildByteFallback(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildFuse(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildStrip(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildMetaspace(const Json& node, const std::string& path, bool& fused, Stages& stages);
void BuildWordPiece(const Json& node, const std::string& path, bool& fused, Stages& stages);

}  // namespace triton_studio::tok::decoders
