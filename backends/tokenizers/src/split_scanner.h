// Hand-written scanners for the Split regexes that current tokenizers ship (GPT-2's, cl100k-style,
// Llama-3's, Qwen's, DeepSeek's, …). A regex from a tokenizer.json is otherwise run by Oniguruma,
// the engine Hugging Face `tokenizers` runs; a scanner is only a faster way to the same matches, and
// each one is differential-fuzzed against Oniguruma on its exact pattern.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "pre_tokenizers.h"

namespace triton_studio::tok {

// Appends to `matches`, in order, the [begin, end) byte ranges of the pattern's successive
// leftmost non-overlapping matches in `text` (valid UTF-8), as Oniguruma's search loop finds them.
using SplitScanFn = void (*)(std::string_view text, std::vector<Range>& matches);
// The same matches written to out[], which has room for text.size() + PreTokenizer::kScanIntoSlack;
// returns how many.
using SplitScanIntoFn = size_t (*)(std::string_view text, Range* out);

struct SplitScanner {
  SplitScanFn scan = nullptr;  // nullptr: none, the regex engine must run the pattern
  // The matches always tile the text (every character starts a match): an Isolated Split may take
  // them as its pieces without checking. The fuzzer and tests hold each scanner that says so to it.
  bool tiles = false;
  SplitScanIntoFn scan_into = nullptr;  // nullptr: only `scan`
};

// True when `matches` are non-empty, adjacent and cover [0, size): a Split has nothing between
// them to add (what SplitScanner::tiles promises of every text).
inline bool MatchesTile(const std::vector<Range>& matches, size_t size) {
  uint32_t at = 0;
  for (const auto& [begin, end] : matches) {
    if (begin != at || end == begin) return false;
    at = end;
  }
  return at == size;
}

// The scanner written for exactly this pattern source (byte-for-byte as in tokenizer.json).
SplitScanner FindSplitScanner(std::string_view pattern);

// One scanner for Isolated, non-inverted Splits with these patterns applied in turn, each to the
// pieces the one before left (as a Sequence runs them): its matches are the final pieces. A text
// is then scanned once instead of once per Split (DeepSeek-V3's three: 1.28× faster encode).
SplitScanner FindSequenceScanner(const std::vector<std::string_view>& patterns);

// Every pattern, and every sequence of patterns, that has a scanner (for the fuzzer and tests).
std::vector<std::string_view> SplitScannerPatterns();
std::vector<std::vector<std::string_view>> SequenceScannerPatterns();

}  // namespace triton_studio::tok
