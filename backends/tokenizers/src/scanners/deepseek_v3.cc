// DeepSeek-V3's Split patterns (see deepseek_v3.h) as scanners. Unlike the tiktoken-style
// patterns, the third one does not cover every character (a digit or a control character not
// before a letter matches nothing): the search then moves on one character, as Oniguruma's does,
// and the character stays in the text between matches.
// Differential-fuzzed against Oniguruma on the exact patterns (fuzz/fuzz_split_scanners.cc).
#include "scanners/deepseek_v3.h"

#include "scanners/scan_parts.h"

namespace triton_studio::tok::scanners {
namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// The 32 ASCII punctuation and symbol characters the first alternative lists.
bool IsAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool LetterOrMark(uint16_t k, char) { return (k & (kLetter | kMark)) != 0; }
bool PunctOrSymbol(uint16_t k, char) { return (k & (kPunct | kSymbol)) != 0; }

}  // namespace

void ScanDigits1To3(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0, len;
  while (i < n) {
    if (!(ClassAt(text, i, len) & kNumber)) {
      i += len;
      continue;
    }
    size_t end = i + len;
    for (int d = 1; d < 3 && end < n; ++d) {
      size_t l;
      if (!(ClassAt(text, end, l) & kNumber)) break;
      end += l;
    }
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

void ScanCjkKana(std::string_view text, std::vector<Range>& matches) {
  const auto in = [](char32_t c) { return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x4E00 && c <= 0x9FA5); };
  const size_t n = text.size();
  size_t i = 0, len;
  while (i < n) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    if (!in(DecodeAt(text, i, len))) {
      i += len;
      continue;
    }
    size_t end = i + len;
    while (end < n && static_cast<unsigned char>(text[end]) >= 0x80 && in(DecodeAt(text, end, len))) end += len;
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

void ScanDeepSeekWords(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t len;
    const uint16_t k = ClassAt(text, i, len);
    const char c = text[i];
    size_t next_len = 0;
    const uint16_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint16_t{0};
    size_t end = 0;
    if (IsAsciiPunct(c) && i + 1 < n && IsAsciiLetter(text[i + 1])) {
      // [!"#…~][A-Za-z]+
      end = i + 2;
      while (end < n && IsAsciiLetter(text[end])) ++end;
    } else if (!IsCrLf(c) && !(k & (kLetter | kPunct | kSymbol)) && (next & (kLetter | kMark))) {
      end = RunEnd(text, i + len, LetterOrMark);  // [^\r\n\p{L}\p{P}\p{S}] then [\p{L}\p{M}]+
    } else if (k & (kLetter | kMark)) {
      end = RunEnd(text, i, LetterOrMark);  // [\p{L}\p{M}]+
    } else if ((k & (kPunct | kSymbol)) || (c == ' ' && (next & (kPunct | kSymbol)))) {
      //  ?[\p{P}\p{S}]+[\r\n]*
      end = RunEnd(text, c == ' ' ? i + 1 : i, PunctOrSymbol);
      while (end < n && IsCrLf(text[end])) ++end;
    } else if (k & kSpace) {
      end = WhiteSpaceEnd(text, i);
    } else {
      i += len;  // nothing matches here
      continue;
    }
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

}  // namespace triton_studio::tok::scanners
