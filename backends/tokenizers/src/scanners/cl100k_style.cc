// The Split pattern of Llama-3 / Llama-3.1 (tiktoken's cl100k_base pattern) and Qwen2/Qwen3's
// (the same with single digits), as a scanner:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Oniguruma tries the alternatives left to right at each position and keeps the first that
// matches, each greedy with backtracking; below, each branch is what that search settles on.
// Differential-fuzzed against Oniguruma on the exact patterns (fuzz/fuzz_split_scanners.cc).
#include "scanners/cl100k_style.h"

#include "scanners/scan_parts.h"

namespace triton_studio::tok::scanners {
namespace {

bool Letter(uint16_t k, char) { return (k & kLetter) != 0; }

// The general path: the piece that starts at i, whatever the characters.
template <int kMaxDigits>
size_t PieceEnd(std::string_view text, size_t i) {
  const size_t n = text.size();
  size_t len;
  const uint16_t k = ClassAt(text, i, len);
  const char c = text[i];
  if (const size_t l = ContractionLength(text, i); l != 0) return i + l;  // 'contraction
  if (k & kLetter) return RunEnd(text, i, Letter);  // [^\r\n\p{L}\p{N}]? takes nothing here: \p{L}+
  if (size_t l; !(k & kNumber) && !IsCrLf(c) && i + len < n && (ClassAt(text, i + len, l) & kLetter))
    return RunEnd(text, i + len, Letter);  // one leading non-letter, non-number, then \p{L}+
  if (k & kNumber) return DigitsEnd(text, i + len, kMaxDigits);
  size_t next_len = 0;
  const uint16_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint16_t{kSpace};
  if (IsOther(k, c) || (c == ' ' && IsOther(next, 0))) {
    //  ?[^\s\p{L}\p{N}]+[\r\n]*
    size_t end = RunEnd(text, IsOther(k, c) ? i : i + 1, IsOther);
    while (end < n && IsCrLf(text[end])) ++end;
    return end;
  }
  return WhiteSpaceEnd(text, i);
}

// \p{L}+ from p on, ASCII letters in a tight loop.
inline size_t LettersEnd(std::string_view s, size_t p) {
  p = AsciiLettersEnd(s, p);
  if (p < s.size() && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, Letter);
  return p;
}

// The Oniguruma search, piece by piece: ASCII text decided on byte kinds alone (the common piece
// is a word, or a word after one space or punctuation character); anything that reaches a
// non-ASCII character where it matters goes to PieceEnd.
template <int kMaxDigits>
void Scan(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t kind = kByteKind[text[i]];
    size_t end;
    if (kind == kLetterByte) {
      end = LettersEnd(text, i + 1);
    } else if (kind & (kSpaceByte | kOtherByte)) {
      // May lead a word ([^\r\n\p{L}\p{N}]), unless an apostrophe starts a contraction.
      const uint8_t next = i + 1 < n ? kByteKind[text[i + 1]] : uint8_t{kSpaceByte};
      if (next == kLetterByte && text[i] != '\'') {
        end = LettersEnd(text, i + 2);
      } else if (size_t l; next == kHighByte && text[i] != '\'' && (ClassAt(text, i + 1, l) & kLetter)) {
        end = RunEnd(text, i + 1 + l, Letter);  // a non-ASCII letter after the lead
      } else if (next & (kHighByte | kLetterByte)) {  // a non-ASCII character next, or 'contraction
        end = PieceEnd<kMaxDigits>(text, i);
      } else if (kind == kOtherByte) {
        end = OthersEnd<false>(text, i + 1);
      } else if (text[i] == ' ' && next == kOtherByte) {
        end = OthersEnd<false>(text, i + 2);
      } else {
        end = WhiteSpaceEnd(text, i);
      }
    } else if (kind == kDigitByte) {
      end = DigitsEnd(text, i + 1, kMaxDigits);
    } else if (kind == kCrLfByte) {
      end = WhiteSpaceEnd(text, i);
    } else if (size_t l; ClassAt(text, i, l) & kLetter) {  // a non-ASCII letter
      end = RunEnd(text, i + l, Letter);
    } else {
      end = PieceEnd<kMaxDigits>(text, i);
    }
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

}  // namespace

void ScanCl100k(std::string_view text, std::vector<Range>& matches) { Scan<3>(text, matches); }
void ScanQwen2(std::string_view text, std::vector<Range>& matches) { Scan<1>(text, matches); }

}  // namespace triton_studio::tok::scanners
