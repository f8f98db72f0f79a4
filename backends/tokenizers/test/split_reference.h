// What a sequence scanner is held to, shared by split_scanners_test.cc and
// fuzz/fuzz_split_scanners.cc: Oniguruma running its patterns as HF's Sequence of Isolated Splits.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "onig_regex.h"
#include "pre_tokenizers.h"

namespace triton_studio::tok::reference {

// `engines` as Isolated Splits in turn, each on the pieces the one before left, from the whole
// text: every match and every stretch between matches is a piece.
inline std::vector<Range> EnginesInTurn(const std::vector<std::unique_ptr<OnigRegex>>& engines,
                                        std::string_view text) {
  std::vector<Range> pieces, next, m;
  if (!text.empty()) pieces.push_back({0, static_cast<uint32_t>(text.size())});
  for (const auto& engine : engines) {
    next.clear();
    for (const auto& [b, e] : pieces) {
      m.clear();
      engine->FindMatches(text.substr(b, e - b), m);
      uint32_t prev = 0;
      for (const auto& [mb, me] : m) {
        if (mb != prev) next.push_back({b + prev, b + mb});
        if (me != mb) next.push_back({b + mb, b + me});
        prev = me;
      }
      if (prev != e - b) next.push_back({b + prev, e});
    }
    pieces.swap(next);
  }
  return pieces;
}

}  // namespace triton_studio::tok::reference
