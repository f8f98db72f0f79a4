// The character classes of the hand-written Split scanners, as Oniguruma has them: a table
// generated from the linked engine (tools/gen_onig_classes.cc), so a scanner's \p{L}, \p{N}, \s,
// \p{Lu}, … are the regex engine's, Unicode version included.
#pragma once

#include <cstdint>
#include <string_view>

namespace triton_studio::tok::scanners {

// One bit per class a scanner tests; 0: none of them.
enum : uint16_t {
  kLetter = 1,         // \p{L}
  kNumber = 2,         // \p{N}
  kSpace = 4,          // \s
  kUpper = 8,          // \p{Lu}
  kLower = 16,         // \p{Ll}
  kTitle = 32,         // \p{Lt}
  kModifier = 64,      // \p{Lm}
  kOtherLetter = 128,  // \p{Lo}
  kMark = 256,         // \p{M}
  kPunct = 512,        // \p{P}
  kSymbol = 1024,      // \p{S}
};

// Each class bit with the Oniguruma property it stands for (the generator and the ctest use it).
struct ClassProperty {
  uint16_t bit;
  const char* regex;
};
inline constexpr ClassProperty kClassProperties[] = {
    {kLetter, "\\p{L}"},  {kNumber, "\\p{N}"}, {kSpace, "\\s"},     {kUpper, "\\p{Lu}"},
    {kLower, "\\p{Ll}"},  {kTitle, "\\p{Lt}"}, {kModifier, "\\p{Lm}"}, {kOtherLetter, "\\p{Lo}"},
    {kMark, "\\p{M}"},    {kPunct, "\\p{P}"},  {kSymbol, "\\p{S}"},
};

// The generated two-stage table (char_classes.cc): stage 1 picks a 256-code-point block.
extern const uint16_t* const kClassStage1;
extern const uint16_t* const kClassStage2;

// The classes of code point `c` (an OR of the bits above).
inline uint16_t ClassOf(char32_t c) {
  if (c >= 0x110000) return 0;
  return kClassStage2[static_cast<size_t>(kClassStage1[c >> 8]) * 256 + (c & 0xFF)];
}
// The Oniguruma version the table was generated from.
const char* ClassTableVersion();

// Decodes the code point at byte i of valid UTF-8 `s`; sets `len` to its byte length.
inline char32_t DecodeAt(std::string_view s, size_t i, size_t& len) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    len = 1;
    return b0;
  }
  const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]) & 0x3F); };
  if (b0 < 0xE0) {
    len = 2;
    return (static_cast<char32_t>(b0 & 0x1F) << 6) | b(1);
  }
  if (b0 < 0xF0) {
    len = 3;
    return (static_cast<char32_t>(b0 & 0x0F) << 12) | (b(1) << 6) | b(2);
  }
  len = 4;
  return (static_cast<char32_t>(b0 & 0x07) << 18) | (b(1) << 12) | (b(2) << 6) | b(3);
}

}  // namespace triton_studio::tok::scanners
