// The character classes of the hand-written Split scanners, as Oniguruma has them: a table
// generated from the linked engine (tools/gen_onig_classes.cc), so a scanner's \p{L}, \p{N} and
// \s are the regex engine's, Unicode version included.
#pragma once

#include <cstdint>
#include <string_view>

namespace triton_studio::tok::scanners {

enum : uint8_t { kLetter = 1, kNumber = 2, kSpace = 4 };  // \p{L}, \p{N}, \s; 0: none of them

// The classes of code point `c` (kLetter | kNumber | kSpace bits).
uint8_t ClassOf(char32_t c);
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
