// Scanner for the o200k-style Split pattern (split_scanner.cc registers it by pattern).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "pre_tokenizers.h"

namespace triton_studio::tok::scanners {

// gpt-oss (tiktoken's o200k_base):
// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
// \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
void ScanO200k(std::string_view text, std::vector<Range>& matches);
// The same into out[] (SplitScanIntoFn).
size_t ScanO200kInto(std::string_view text, Range* out);

}  // namespace triton_studio::tok::scanners
