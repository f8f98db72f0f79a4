// UTF-8 decoding/encoding helpers. Invalid input is handled the way Rust's
// String::from_utf8_lossy and Python's errors="replace" do: each maximal invalid subpart becomes
// one U+FFFD (Unicode's "substitution of maximal subparts" practice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triton_studio::tok::utf8 {

inline constexpr char32_t kReplacement = 0xFFFD;
inline constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at s[i] (1..4), or 0 when the bytes there are not a
// complete valid sequence. `*maximal_subpart` receives how many bytes form the maximal invalid
// subpart in that case (>= 1), or, for a truncated-but-so-far-valid sequence at the end of the
// input, how many bytes it has.
size_t ValidSequenceLength(std::string_view s, size_t i, size_t* maximal_subpart = nullptr);

// Decodes one code point at s[i] (which must start a valid sequence of length `len`).
char32_t DecodeAt(std::string_view s, size_t i, size_t len);

void Append(char32_t c, std::string& out);
size_t EncodedLength(char32_t c);

// Length of the run of ASCII bytes at s[i] (0 when s[i] is not one), checked 16 or 8 bytes at a
// time (text is mostly ASCII).
size_t AsciiRun(std::string_view s, size_t i);

// True if every byte sequence in s is valid UTF-8.
bool IsValid(std::string_view s);

// Appends s to out with every maximal invalid subpart replaced by U+FFFD.
void AppendLossy(std::string_view s, std::string& out);

// Number of trailing bytes of s that form a valid-so-far but incomplete sequence (0..3): bytes a
// streaming decoder must hold back because later bytes may complete them.
size_t IncompleteTail(std::string_view s);

// Decodes (lossily) into code points.
std::u32string ToCodePoints(std::string_view s);
std::string FromCodePoints(std::u32string_view s);

}  // namespace triton_studio::tok::utf8
