// Extended grapheme clusters (UAX #29, Unicode 17.0, rules GB3-GB13 with GB9c), as the Rust crate
// unicode-segmentation splits them for HF tokenizers' `graphemes(true)`. Tables come from
// scripts/gen-unicode-tables.ts (grapheme_tables.inc).
#pragma once

#include <cstddef>
#include <string_view>

namespace triton_studio::tok::graphemes {

// The byte length of the grapheme cluster that starts at text[pos] (pos < text.size(), text valid
// UTF-8 and pos on a code point boundary); at least one code point.
size_t ClusterLength(std::string_view text, size_t pos);

const char* UnicodeVersion();

}  // namespace triton_studio::tok::graphemes
