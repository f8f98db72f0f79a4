// Bounds on tokenizer.json input, checked on the raw text before anything is built from it, so no
// file makes the loader recurse, allocate or run without limit. Components nest (a Sequence holds
// Sequences) and are built and run recursively: the depth bound is what bounds that recursion.
#pragma once

#include <cstddef>
#include <string_view>

namespace triton_studio::tok {

// Larger than any published tokenizer.json (Gemma-3's, among the largest, is about 33 MB).
inline constexpr size_t kMaxTokenizerJsonBytes = size_t{256} << 20;

// Hugging Face reads tokenizer.json with serde_json, whose recursion limit refuses a file with 128
// nested containers ("recursion limit exceeded"): 127 is the deepest file both libraries load.
inline constexpr size_t kMaxTokenizerJsonDepth = 127;

// Throws TokenizerError naming the bound and where the text crosses it.
void CheckTokenizerJsonLimits(std::string_view text);

}  // namespace triton_studio::tok
