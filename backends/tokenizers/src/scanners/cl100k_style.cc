// The Split pattern of Llama-3 / Llama-3.1 (tiktoken's cl100k_base pattern) and Qwen2/Qwen3's
// (the same with single digits), as a scanner:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Oniguruma tries the alternatives left to right at each position and keeps the first that
// matches, each greedy with backtracking; below, each branch is what that search settles on.
// Differential-fuzzed against Oniguruma on the exact patterns (fuzz/fuzz_split_scanners.cc).
#include "scanners/cl100k_style.h"

#include "scanners/char_classes.h"

namespace triton_studio::tok::scanners {
namespace {

// Classes of the ASCII characters, from the same table (most text is ASCII).
struct Ascii {
  uint8_t of[128];
  Ascii() {
    for (char32_t c = 0; c < 128; ++c) of[c] = ClassOf(c);
  }
};
const Ascii kAscii;

inline uint8_t ClassAt(std::string_view s, size_t i, size_t& len) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    len = 1;
    return kAscii.of[b];
  }
  return ClassOf(DecodeAt(s, i, len));
}

inline bool IsCrLf(char c) { return c == '\r' || c == '\n'; }

// End of the run of characters starting at i whose classes satisfy `keep`.
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
    const uint8_t k = ClassOf(DecodeAt(s, i, len));
    if (!keep(k, '\x80')) break;
    i += len;
  }
  return i;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i] == '\'': the match length, or 0. Oniguruma's case folding
// adds U+017F LATIN SMALL LETTER LONG S to 's' (UTF-8 C5 BF); no other character folds to one of
// these letters.
inline size_t ContractionLength(std::string_view s, size_t i) {
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

template <int kMaxDigits>
void Scan(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  const auto letters = [](uint8_t k, char) { return (k & kLetter) != 0; };
  // [^\s\p{L}\p{N}]: no class at all.
  const auto others = [](uint8_t k, char) { return k == 0; };
  size_t i = 0;
  while (i < n) {
    size_t len;
    const uint8_t k = ClassAt(text, i, len);
    const char c = text[i];
    size_t end = 0;
    if (c == '\'') {
      const size_t l = ContractionLength(text, i);
      if (l != 0) end = i + l;
    }
    if (end != 0) {
      // 'contraction
    } else if (k & kLetter) {
      end = RunEnd(text, i, letters);  // [^\r\n\p{L}\p{N}]? takes nothing here: \p{L}+
    } else if (size_t l; !(k & kNumber) && !IsCrLf(c) && i + len < n && (ClassAt(text, i + len, l) & kLetter)) {
      end = RunEnd(text, i + len, letters);  // one leading non-letter, non-number, then \p{L}+
    } else if (k & kNumber) {
      end = i + len;
      for (int d = 1; d < kMaxDigits && end < n; ++d) {
        size_t l;
        if (!(ClassAt(text, end, l) & kNumber)) break;
        end += l;
      }
    } else {
      size_t next_len = 0;
      const uint8_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint8_t{kSpace};
      if (k == 0 || (c == ' ' && next == 0)) {
        //  ?[^\s\p{L}\p{N}]+[\r\n]*
        end = RunEnd(text, k == 0 ? i : i + 1, others);
        while (end < n && IsCrLf(text[end])) ++end;
      } else {
        // White space: \s*[\r\n]+ ends after the run's last CR or LF; else \s+(?!\S) leaves the
        // run's last character to the next match when a non-space follows; else \s+.
        const size_t run = RunEnd(text, i, [](uint8_t cls, char) { return (cls & kSpace) != 0; });
        size_t last_crlf = run;
        for (size_t p = run; p > i;) {
          --p;
          if (IsCrLf(text[p])) {
            last_crlf = p;
            break;
          }
        }
        if (last_crlf != run) {
          end = last_crlf + 1;
        } else if (run == n) {
          end = run;
        } else {
          size_t last = run - 1;
          while ((static_cast<unsigned char>(text[last]) & 0xC0) == 0x80) --last;
          end = last > i ? last : run;
        }
      }
    }
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

}  // namespace

void ScanCl100k(std::string_view text, std::vector<Range>& matches) { Scan<3>(text, matches); }
void ScanQwen2(std::string_view text, std::vector<Range>& matches) { Scan<1>(text, matches); }

}  // namespace triton_studio::tok::scanners
