// GPT-2's byte-level alphabet and split rule, shared by the ByteLevel pre-tokenizer, the BPE model
// (which maps bytes to symbols directly) and the ByteLevel decoder.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace triton_studio::tok::byte_level {

// The printable code point GPT-2 uses for each byte (bytes_to_unicode in GPT-2's encoder.py).
const std::array<char32_t, 256>& ByteToChar();
// Inverse of ByteToChar: code point -> byte, or -1 when the code point is not in the alphabet.
int CharToByte(char32_t c);

// Appends `bytes` as GPT-2 alphabet characters (UTF-8): what a byte-level pre-tokenizer hands
// models other than BPE (which maps bytes itself).
void AppendAsChars(std::string_view bytes, std::string& out);

// GPT-2's split pattern, which HF's ByteLevel pre-tokenizer runs in Oniguruma when use_regex is set.
inline constexpr std::string_view kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Splits valid UTF-8 `text` as Oniguruma's search loop does with kGpt2Pattern (leftmost
// alternative wins), appending [begin, end) byte ranges offset by `base`.
void SplitGpt2(std::string_view text, uint32_t base, std::vector<std::pair<uint32_t, uint32_t>>& out);
// The same into out[], with room for text.size() + PreTokenizer::kScanIntoSlack ranges, offsets
// from 0; returns how many.
size_t SplitGpt2Into(std::string_view text, std::pair<uint32_t, uint32_t>* out);

}  // namespace triton_studio::tok::byte_level
