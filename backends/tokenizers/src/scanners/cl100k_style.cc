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

template <int kMaxDigits>
void Scan(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  const auto letters = [](uint16_t k, char) { return (k & kLetter) != 0; };
  // [^\s\p{L}\p{N}]
  const auto others = [](uint16_t k, char) { return (k & (kLetter | kNumber | kSpace)) == 0; };
  size_t i = 0;
  while (i < n) {
    size_t len;
    const uint16_t k = ClassAt(text, i, len);
    const char c = text[i];
    size_t end = 0;
    if (const size_t l = ContractionLength(text, i); l != 0) {
      end = i + l;  // 'contraction
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
      const uint16_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint16_t{kSpace};
      if (others(k, c) || (c == ' ' && others(next, 0))) {
        //  ?[^\s\p{L}\p{N}]+[\r\n]*
        end = RunEnd(text, others(k, c) ? i : i + 1, others);
        while (end < n && IsCrLf(text[end])) ++end;
      } else {
        end = WhiteSpaceEnd(text, i);
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
