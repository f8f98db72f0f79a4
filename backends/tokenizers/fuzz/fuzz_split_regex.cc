// Arbitrary regex patterns (from tokenizer.json, i.e. from whoever wrote the file) on arbitrary
// text: a pattern Oniguruma refuses is a TokenizerError at load, a search past the backtracking
// limits is a TokenizerError at encode, and otherwise the pieces are in order, inside the text,
// never empty, and (Isolated, not inverted) add up to the text. Input: pattern, a 0 byte, text.
#include <cstring>

#include "../src/pre_tokenizers.h"
#include "../src/utf8.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const char* behaviors[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
  const uint8_t options = data[0];
  const auto* begin = reinterpret_cast<const char*>(data + 1);
  const auto* zero = static_cast<const char*>(std::memchr(begin, 0, size - 1));
  if (zero == nullptr) return 0;
  std::string pattern(begin, zero);
  std::string text(zero + 1, begin + (size - 1));
  if (!triton_studio::tok::utf8::IsValid(pattern) || !triton_studio::tok::utf8::IsValid(text)) return 0;
  const bool invert = (options & 8) != 0;
  const char* behavior = behaviors[options % 5];
  std::unique_ptr<triton_studio::tok::PreTokenizer> split;
  try {
    split = triton_studio::tok::MakePreTokenizer(
        {{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", behavior}, {"invert", invert}},
        "pre_tokenizer");
  } catch (const triton_studio::tok::TokenizerError&) {
    return 0;  // a pattern Oniguruma does not compile
  }
  triton_studio::tok::Pieces pieces;
  pieces.text = text;
  pieces.ranges.assign(1, {0, static_cast<uint32_t>(text.size())});
  try {
    split->PreTokenize(pieces);
  } catch (const triton_studio::tok::TokenizerError& e) {
    if (std::strstr(e.what(), "backtracks too much") == nullptr) fuzz::Fail("unexpected search error");
    return 0;
  }
  uint32_t prev = 0;
  std::string joined;
  for (const auto& [b, e] : pieces.ranges) {
    if (b < prev || e <= b || e > text.size()) fuzz::Fail("piece out of order, empty or outside the text");
    prev = e;
    joined.append(text, b, e - b);
  }
  if (!invert && options % 5 == 1 && joined != text) fuzz::Fail("Isolated pieces do not add up to the text");
  return 0;
}
