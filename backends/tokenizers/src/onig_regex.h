// A regex from a tokenizer.json, run by Oniguruma: the engine Hugging Face `tokenizers` runs
// (its `onig` crate), compiled the same way (default syntax, no options, UTF-8) and searched with
// the crate's find_iter loop, so matches agree with HF's to the byte. Oniguruma backtracks: a
// pattern from an untrusted file may need exponential time on some input, so every search runs
// under a retry and a stack limit and throws TokenizerError (naming the pattern) past them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pre_tokenizers.h"

namespace triton_studio::tok {

class OnigRegex {
 public:
  // Backtracking bounds of one search (Oniguruma's retry-limit-in-match default, which HF runs
  // with too; the search-wide and stack bounds are this library's: HF has none and would run on).
  static constexpr unsigned long kRetryLimitInMatch = 10'000'000;
  static constexpr unsigned long kRetryLimitInSearch = 100'000'000;
  static constexpr unsigned int kStackLimit = 1u << 23;  // entries (roughly 8M characters of one run)

  // Compiles `pattern`; a pattern Oniguruma refuses is a TokenizerError at `path` with its reason.
  OnigRegex(const std::string& pattern, const std::string& path);
  ~OnigRegex();
  OnigRegex(const OnigRegex&) = delete;
  OnigRegex& operator=(const OnigRegex&) = delete;

  // Appends the [begin, end) byte ranges of the successive matches in `text` (valid UTF-8), as the
  // `onig` crate's find_iter yields them: leftmost matches, each search starting where the last
  // match ended; an empty match right where the previous match ended is skipped (the search moves
  // one character on), any other empty match is kept. Offsets are relative to `text`.
  void FindMatches(std::string_view text, std::vector<Range>& matches) const;

  // The Oniguruma version compiled in (e.g. "6.9.8").
  static const char* EngineVersion();

 private:
  [[noreturn]] void ThrowSearchError(int code, size_t text_size) const;

  void* regex_ = nullptr;  // OnigRegex (kept out of this header so users need no oniguruma.h)
  std::string pattern_, path_;
};

}  // namespace triton_studio::tok
