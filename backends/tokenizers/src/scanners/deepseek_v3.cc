// DeepSeek-V3's Split patterns (see deepseek_v3.h) as scanners. Unlike the tiktoken-style
// patterns, the third one does not cover every character (a digit or a control character not
// before a letter matches nothing): the search then moves on one character, as Oniguruma's does,
// and the character stays in the text between matches.
// Differential-fuzzed against Oniguruma on the exact patterns (fuzz/fuzz_split_scanners.cc).
#include "scanners/deepseek_v3.h"

#include <cstring>

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

// The first byte from p on that is an ASCII digit or not ASCII (where a \p{N} may start), eight
// bytes at a time.
size_t NextDigitOrHigh(std::string_view s, size_t p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x80 * kOnes;
  while (p + 8 <= s.size()) {
    uint64_t x;
    std::memcpy(&x, s.data() + p, 8);
    const uint64_t low = x & ~kHigh;  // bit 7 of each byte: >= '0', and > '9' (no carry crosses bytes)
    const uint64_t digits = (low + (0x80 - '0') * kOnes) & ~(low + (0x80 - '9' - 1) * kOnes) & ~x & kHigh;
    const uint64_t stops = digits | (x & kHigh);
    if (stops != 0) return p + (static_cast<size_t>(__builtin_ctzll(stops)) >> 3);  // little-endian
    p += 8;
  }
  while (p < s.size() && !(kByteKind[s[p]] & (kDigitByte | kHighByte))) ++p;
  return p;
}

// The first non-ASCII byte from p on, eight bytes at a time.
size_t NextHigh(std::string_view s, size_t p) {
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  while (p + 8 <= s.size()) {
    uint64_t x;
    std::memcpy(&x, s.data() + p, 8);
    if (const uint64_t stops = x & kHigh; stops != 0) return p + (static_cast<size_t>(__builtin_ctzll(stops)) >> 3);
    p += 8;
  }
  while (p < s.size() && static_cast<unsigned char>(s[p]) < 0x80) ++p;
  return p;
}

}  // namespace

void ScanDigits1To3(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0, len;
  while ((i = NextDigitOrHigh(text, i)) < n) {
    if (!(ClassAt(text, i, len) & kNumber)) {
      i += len;
      continue;
    }
    const size_t end = DigitsEnd(text, i + len, 3);
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

void ScanCjkKana(std::string_view text, std::vector<Range>& matches) {
  const auto in = [](char32_t c) { return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x4E00 && c <= 0x9FA5); };
  const size_t n = text.size();
  size_t i = 0, len;
  while ((i = NextHigh(text, i)) < n) {
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

namespace {

// The general path of ScanDeepSeekWords: the end of the match at i, or 0 when none starts there
// (`len`: the character's length).
size_t WordsPieceEnd(std::string_view text, size_t i, size_t& len) {
  const size_t n = text.size();
  const uint16_t k = ClassAt(text, i, len);
  const char c = text[i];
  size_t next_len = 0;
  const uint16_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint16_t{0};
  if (IsAsciiPunct(c) && i + 1 < n && IsAsciiLetter(text[i + 1])) {
    return AsciiLettersEnd(text, i + 2);  // [!"#…~][A-Za-z]+
  }
  if (!IsCrLf(c) && !(k & (kLetter | kPunct | kSymbol)) && (next & (kLetter | kMark))) {
    return RunEnd(text, i + len, LetterOrMark);  // [^\r\n\p{L}\p{P}\p{S}] then [\p{L}\p{M}]+
  }
  if (k & (kLetter | kMark)) return RunEnd(text, i, LetterOrMark);  // [\p{L}\p{M}]+
  if ((k & (kPunct | kSymbol)) || (c == ' ' && (next & (kPunct | kSymbol)))) {
    //  ?[\p{P}\p{S}]+[\r\n]*
    size_t end = RunEnd(text, c == ' ' ? i + 1 : i, PunctOrSymbol);
    while (end < n && IsCrLf(text[end])) ++end;
    return end;
  }
  if (k & kSpace) return WhiteSpaceEnd(text, i);
  return 0;  // nothing matches here
}

// [\p{L}\p{M}]+ from p on (its first character already taken), ASCII letters eight at a time.
size_t LettersOrMarksEnd(std::string_view s, size_t p) {
  p = AsciiLettersEnd(s, p);
  if (p < s.size() && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, LetterOrMark);
  return p;
}

// [\p{P}\p{S}]+[\r\n]* from p on (its first character already taken).
size_t PunctEnd(std::string_view s, size_t p) {
  const size_t n = s.size();
  while (p < n && IsAsciiPunct(s[p])) ++p;
  if (p < n && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, PunctOrSymbol);
  while (p < n && kByteKind[s[p]] == kCrLfByte) ++p;
  return p;
}

}  // namespace

// ASCII text decided on byte kinds alone; anything that reaches a non-ASCII character where it
// matters goes to WordsPieceEnd.
void ScanDeepSeekWords(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const char c = text[i];
    const uint8_t kind = kByteKind[c];
    const uint8_t next = i + 1 < n ? kByteKind[text[i + 1]] : uint8_t{0};
    size_t end;
    if (kind == kLetterByte) {
      end = LettersOrMarksEnd(text, i + 1);  // [\p{L}\p{M}]+
    } else if (size_t l; kind == kHighByte && (ClassAt(text, i, l) & (kLetter | kMark))) {
      end = RunEnd(text, i + l, LetterOrMark);  // [\p{L}\p{M}]+ (a mark that leads ends the same)
    } else if (kind == kHighByte || next == kHighByte) {
      size_t len;
      end = WordsPieceEnd(text, i, len);
      if (end == 0) {
        i += len;
        continue;
      }
    } else if (IsAsciiPunct(c)) {
      // [!"#…~][A-Za-z]+, else [\p{P}\p{S}]+[\r\n]*
      end = next == kLetterByte ? AsciiLettersEnd(text, i + 2) : PunctEnd(text, i + 1);
    } else if (kind == kCrLfByte) {
      end = WhiteSpaceEnd(text, i);
    } else if (next == kLetterByte) {
      end = LettersOrMarksEnd(text, i + 2);  // white space, a digit or a control character leads
    } else if (c == ' ' && next == kOtherByte && IsAsciiPunct(text[i + 1])) {
      end = PunctEnd(text, i + 2);
    } else if (kind == kSpaceByte) {
      end = WhiteSpaceEnd(text, i);
    } else {
      ++i;  // a digit or a control character: nothing matches here
      continue;
    }
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

}  // namespace triton_studio::tok::scanners
