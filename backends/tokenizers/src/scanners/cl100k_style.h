// Scanners for the cl100k-style Split patterns (split_scanner.cc registers them by pattern).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "pre_tokenizers.h"

namespace triton_studio::tok::scanners {

// Llama-3, Llama-3.1: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
void ScanCl100k(std::string_view text, std::vector<Range>& matches);
// Qwen2, Qwen2.5, Qwen3: the same with \p{N} instead of \p{N}{1,3}.
void ScanQwen2(std::string_view text, std::vector<Range>& matches);
// The same into out[] (SplitScanIntoFn).
size_t ScanCl100kInto(std::string_view text, Range* out);
size_t ScanQwen2Into(std::string_view text, Range* out);

}  // namespace triton_studio::tok::scanners
