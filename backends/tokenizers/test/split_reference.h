// What the scanners are held to, shared by split_scanners_test.cc, byte_level_split_test.cc and
// fuzz/fuzz_split_scanners.cc: Oniguruma running a sequence's patterns as HF's Sequence of
// Isolated Splits, and random text of the bytes the scanners decide on.
#pragma once

#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
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

// Random text of the bytes the scanners' 64-byte block paths decide on (white space of each kind,
// the contraction letters in both cases, digits and digit runs, punctuation, control characters,
// the apostrophe and contractions), of under `max_size` bytes or a character more; unless `ascii`, with a
// non-ASCII letter, digit, number, mark, space, CJK or kana character now and then. `state`: a xorshift generator's, advanced.
inline std::string RandomScannerText(uint64_t& state, size_t max_size, bool ascii) {
  static const char* const kPieces[] = {
      " ", " ", "  ", "\t", "\n", "\r", "\v", "\f", "'", "'", "s", "S", "t", "e", "r", "v", "l", "L", "m",
      "d", "D", "a", "Q", "0", "7", "9", ".", ",", "-", "/", "!", "\x01", "12345", "'s", "'LL", "'re", "\r\n",
      "  \n", ".\n", "(", "#a", "\x7F", "\x1F", "\xC3\xA9", "\xC2\xA0", "\xE4\xBD\xA0", "\xD9\xA1",
      "\xE3\x82\xAB", "\xE3\x83\xBB", "\xCC\x81", "\xE2\x85\xAB",
      // Others of two, three and four bytes (punctuation, marks, a symbol) and the letters around
      // them in Devanagari and Hebrew: the block scanners take them as runs of their class.
      "\xC2\xBF", "\xE2\x80\x94", "\xE2\x80\x9C", "\xF0\x9F\x98\x80", "\xE0\xA4\xBE", "\xE0\xA5\x8D",
      "\xE0\xA4\xA8", "\xD7\x90"};
  const auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  // The size from the generator too: a size taken from `state` by the caller stayed 0 once a text
  // was empty (an empty text does not advance the generator), and so did every text after it.
  const size_t size = next() % max_size;
  std::string text;
  while (text.size() < size) {
    const char* piece = kPieces[next() % std::size(kPieces)];
    if (ascii && static_cast<unsigned char>(piece[0]) >= 0x80) continue;
    text += piece;
  }
  return text;
}

}  // namespace triton_studio::tok::reference
