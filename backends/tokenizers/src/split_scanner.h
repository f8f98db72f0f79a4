// Hand-written scanners for the Split regexes that current tokenizers ship (GPT-2's, cl100k-style,
// Llama-3's, Qwen's, DeepSeek's, …). A regex from a tokenizer.json is otherwise run by Oniguruma,
// the engine Hugging Face `tokenizers` runs; a scanner is only a faster way to the same matches, and
// each one is differential-fuzzed against Oniguruma on its exact pattern.
#pragma once

#include <string_view>
#include <vector>

#include "pre_tokenizers.h"

namespace triton_studio::tok {

// Appends to `matches`, in order, the [begin, end) byte ranges of the pattern's successive
// leftmost non-overlapping matches in `text` (valid UTF-8), as Oniguruma's search loop finds them.
using SplitScanFn = void (*)(std::string_view text, std::vector<Range>& matches);

// The scanner written for exactly this pattern source (byte-for-byte as in tokenizer.json), or
// nullptr when there is none and the regex engine must run it.
SplitScanFn FindSplitScanner(std::string_view pattern);

// Every pattern that has a scanner (for the differential fuzzer and tests).
std::vector<std::string_view> SplitScannerPatterns();

}  // namespace triton_studio::tok
