// Scanners for DeepSeek-V3's three Split patterns (split_scanner.cc registers them by pattern).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "pre_tokenizers.h"

namespace triton_studio::tok::scanners {

// \p{N}{1,3}
void ScanDigits1To3(std::string_view text, std::vector<Range>& matches);
// [一-龥぀-ゟ゠-ヿ]+ (U+4E00–U+9FA5, U+3040–U+309F, U+30A0–U+30FF)
void ScanCjkKana(std::string_view text, std::vector<Range>& matches);
// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
//  ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
void ScanDeepSeekWords(std::string_view text, std::vector<Range>& matches);
// The three above as DeepSeek-V3's Sequence runs them, each an Isolated Split of the pieces the
// one before left: every resulting piece, in order (they tile the text).
void ScanDeepSeekSequence(std::string_view text, std::vector<Range>& pieces);
// The same into out[] (SplitScanIntoFn).
size_t ScanDeepSeekSequenceInto(std::string_view text, Range* out);

}  // namespace triton_studio::tok::scanners
