// The o200k-style Split pattern (gpt-oss; see o200k_style.h for the pattern) as a scanner.
// Words are cased: an "upper" run [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] then a "lower" run
// [\p{Ll}\p{Lm}\p{Lo}\p{M}], so "HelloWorld" is "Hello" + "World". Oniguruma tries the
// alternatives left to right at each position and keeps the first that matches, each greedy with
// backtracking; each function below is what that search settles on for one alternative.
// Differential-fuzzed against Oniguruma on the exact pattern (fuzz/fuzz_split_scanners.cc).
#include "scanners/o200k_style.h"

#include "scanners/scan_parts.h"

namespace triton_studio::tok::scanners {
namespace {

constexpr uint16_t kUpperish = kUpper | kTitle | kModifier | kOtherLetter | kMark;
constexpr uint16_t kLowerish = kLower | kModifier | kOtherLetter | kMark;

bool Lowerish(uint16_t k, char) { return (k & kLowerish) != 0; }
bool Upperish(uint16_t k, char) { return (k & kUpperish) != 0; }

// [upper]*[lower]+ at t: the end, or 0. The greedy upper run gives characters back until the
// lower run can start: it starts right after the upper run if it can, else it is the last
// character of the upper run that is also "lower" (Lm, Lo, M are both), alone.
size_t UpperStarLowerPlus(std::string_view s, size_t t) {
  size_t p = t, last_lower_end = 0, len;
  while (p < s.size()) {
    const uint16_t k = ClassAt(s, p, len);
    if (!(k & kUpperish)) {
      if (k & kLowerish) return RunEnd(s, p, Lowerish);
      break;
    }
    p += len;
    if (k & kLowerish) last_lower_end = p;
  }
  return last_lower_end;
}

// [upper]+[lower]* at t: the end, or 0.
size_t UpperPlusLowerStar(std::string_view s, size_t t) {
  const size_t p = RunEnd(s, t, Upperish);
  return p == t ? 0 : RunEnd(s, p, Lowerish);
}

// The two word alternatives, each with its optional leading [^\r\n\p{L}\p{N}] tried first: the
// end of the word (before any contraction), or 0.
size_t WordEnd(std::string_view s, size_t i, size_t len, uint16_t k) {
  const bool can_lead = !IsCrLf(s[i]) && !(k & (kLetter | kNumber)) && i + len < s.size();
  size_t end = 0;
  if (can_lead) end = UpperStarLowerPlus(s, i + len);
  if (end == 0) end = UpperStarLowerPlus(s, i);
  if (end == 0 && can_lead) end = UpperPlusLowerStar(s, i + len);
  if (end == 0) end = UpperPlusLowerStar(s, i);
  return end;
}

// [^\s\p{L}\p{N}]
bool Other(uint16_t k, char) { return (k & (kLetter | kNumber | kSpace)) == 0; }

bool IsAsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsAsciiLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAscii(char c) { return static_cast<unsigned char>(c) < 0x80; }

// The word alternatives where they see only ASCII (most text): what WordEnd returns, or
// `kNotAscii` when a character the runs could take is not ASCII (then WordEnd decides). ASCII
// letters are Lu or Ll only, so the upper run is [A-Z]*, the lower run [a-z]*, and a word that has
// no lower-case letter is the upper run alone (the second alternative).
constexpr size_t kNotAscii = ~size_t{0};
size_t AsciiWordEnd(std::string_view s, size_t i) {
  const size_t n = s.size();
  const char c = s[i];
  size_t t = i;
  if (!IsAsciiUpper(c) && !IsAsciiLower(c)) {
    if (i + 1 == n || !IsAscii(s[i + 1])) return kNotAscii;
    const char d = s[i + 1];
    if (!IsAsciiUpper(d) && !IsAsciiLower(d)) return 0;  // no letter or mark at i or i + 1
    if (IsCrLf(c) || (c >= '0' && c <= '9')) return 0;   // may not lead, and is not a letter
    t = i + 1;
  }
  size_t p = t;
  while (p < n && IsAsciiUpper(s[p])) ++p;
  size_t q = p;
  while (q < n && IsAsciiLower(s[q])) ++q;
  if (q < n && !IsAscii(s[q])) return kNotAscii;
  return q;
}

}  // namespace

void ScanO200k(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t len;
    const uint16_t k = ClassAt(text, i, len);
    const char c = text[i];
    size_t end = IsAscii(c) ? AsciiWordEnd(text, i) : kNotAscii;
    if (end == kNotAscii) end = WordEnd(text, i, len, k);
    if (end != 0) {
      end += ContractionLength(text, end);
    } else if (k & kNumber) {  // \p{N}{1,3}
      end = i + len;
      for (int d = 1; d < 3 && end < n; ++d) {
        size_t l;
        if (!(ClassAt(text, end, l) & kNumber)) break;
        end += l;
      }
    } else if (size_t l; Other(k, c) || (c == ' ' && i + 1 < n && Other(ClassAt(text, i + 1, l), 0))) {
      //  ?[^\s\p{L}\p{N}]+[\r\n/]*
      end = RunEnd(text, Other(k, c) ? i : i + 1, Other);
      while (end < n && (IsCrLf(text[end]) || text[end] == '/')) ++end;
    } else {
      end = WhiteSpaceEnd(text, i);
    }
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

}  // namespace triton_studio::tok::scanners
