// The `Precompiled` normalizer: SentencePiece's compiled normalization rules (the charsmap that
// XLM-R, T5, BGE-M3 and multilingual-E5 tokenizer.json files carry, base64 in
// `precompiled_charsmap`), applied as HF tokenizers does (normalizers/precompiled.rs over the
// spm_precompiled crate).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json_fields.h"
#include "normalizers.h"

namespace triton_studio::tok {

// The charsmap: a darts-clone double-array trie over UTF-8 bytes whose values are offsets into a
// blob of NUL-terminated replacement strings. Layout: u32 LE trie size in bytes, the trie's u32
// units, then the blob.
class PrecompiledCharsmap {
 public:
  // Throws TokenizerError naming `path` when the bytes are not a charsmap.
  PrecompiledCharsmap(std::string_view bytes, const std::string& path);

  // The replacement for `chunk`: the one of its shortest prefix that the trie holds (as
  // spm_precompiled's transform does, whatever the chunk's remaining bytes), or false when no
  // prefix of it is in the trie.
  bool Transform(std::string_view chunk, std::string_view* replacement) const;

 private:
  // Value of the shortest key in the trie that is a prefix of `key` (up to its first NUL byte).
  bool ShortestPrefixValue(std::string_view key, uint32_t* value) const;

  std::vector<uint32_t> trie_;
  std::string normalized_;
};

// Builds the normalizer from its tokenizer.json node ({"type":"Precompiled","precompiled_charsmap":…}).
std::unique_ptr<Normalizer> MakePrecompiled(const Json& node, const std::string& path);

// Standard base64 with padding (what HF's from_base64 accepts); false for anything else.
bool DecodeBase64(std::string_view text, std::string* out);

}  // namespace triton_studio::tok
