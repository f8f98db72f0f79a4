// Pieces the Split scanners share: class lookup with an ASCII fast path, runs of a class, the
// tiktoken-style contraction (?i:'s|'t|'re|'ve|'m|'ll|'d) and the white-space tail
// \s*[\r\n]+|\s+(?!\S)|\s+ that cl100k-, o200k- and DeepSeek-style patterns all end with.
#pragma once

#include <cstdint>
#include <string_view>

#include "scanners/char_classes.h"

namespace triton_studio::tok::scanners {

// Classes of the ASCII characters, from the same generated table (most text is ASCII).
struct AsciiClasses {
  uint16_t of[128];
  AsciiClasses() {
    for (char32_t c = 0; c < 128; ++c) of[c] = ClassOf(c);
  }
};
inline const AsciiClasses kAscii;

// The classes of the character at byte i; sets `len` to its byte length.
inline uint16_t ClassAt(std::string_view s, size_t i, size_t& len) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    len = 1;
    return kAscii.of[b];
  }
  return ClassOf(DecodeAt(s, i, len));
}

inline bool IsCrLf(char c) { return c == '\r' || c == '\n'; }

// End of the run of characters starting at i whose classes satisfy keep(classes, ascii byte or
// '\x80' for a non-ASCII character).
template <typename Keep>
inline size_t RunEnd(std::string_view s, size_t i, Keep keep) {
  size_t len;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (!keep(kAscii.of[b], static_cast<char>(b))) break;
      ++i;
      continue;
    }
    const uint16_t k = ClassOf(DecodeAt(s, i, len));
    if (!keep(k, '\x80')) break;
    i += len;
  }
  return i;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i]: the match length, or 0. Oniguruma's case folding adds
// U+017F LATIN SMALL LETTER LONG S to 's' (UTF-8 C5 BF); no other character folds to one of
// these letters.
inline size_t ContractionLength(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] != '\'') return 0;
  const auto lower = [&](size_t k) -> char {
    if (k >= s.size()) return 0;
    const char c = s[k];
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c;
  };
  const char a = lower(i + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (a == '\xC5' && i + 2 < s.size() && s[i + 2] == '\xBF') return 3;  // 'ſ
  const char b = lower(i + 2);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// \s*[\r\n]+|\s+(?!\S)|\s+ at a white-space character s[i]: the match's end. \s*[\r\n]+ ends
// after the run's last CR or LF; else \s+(?!\S) leaves the run's last character to the next
// match when a non-space follows; else \s+.
inline size_t WhiteSpaceEnd(std::string_view s, size_t i) {
  const size_t n = s.size();
  const size_t run = RunEnd(s, i, [](uint16_t cls, char) { return (cls & kSpace) != 0; });
  for (size_t p = run; p > i;) {
    --p;
    if (IsCrLf(s[p])) return p + 1;
  }
  if (run == n) return run;
  size_t last = run - 1;
  while ((static_cast<unsigned char>(s[last]) & 0xC0) == 0x80) --last;
  return last > i ? last : run;
}

}  // namespace triton_studio::tok::scanners
