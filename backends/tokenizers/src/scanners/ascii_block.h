// Sixty-four bytes of ASCII text as class bit masks (bit j: the byte at j), for the scanners that
// decide where pieces start from each byte's neighbours instead of branching piece by piece on
// each byte's kind (those branches were most of a scanner's mispredictions). Each scanner's rules
// are its own (cl100k_style.cc, byte_level.cc); what they share is here: the classes, how far a
// block can decide, and writing the pieces out. x86-64 only (SSE2); elsewhere the scanners run
// piece by piece.
#pragma once

#if defined(__SSE2__)
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>

#include "past_end_reads.h"

namespace triton_studio::tok::scanners {

struct AsciiBlock;

// Whether this CPU runs AVX2 (every x86-64 server CPU since 2013 and 2015); asked once, at load
// (a function-local static was a guard test per 64-byte block). __builtin_cpu_init first: this
// runs among the constructors, possibly before libgcc's own.
inline const bool kHasAvx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
inline bool HasAvx2() { return kHasAvx2; }

// The classes of the 64 bytes at p into `block`'s masks: sixteen bytes a step, or, with AVX2, 32
// (half the instructions). A range is a wrapping subtraction and an unsigned saturation
// (x - lo <= hi - lo as bytes). Written out, not with lambdas: a lambda would not take on the
// AVX2 target.
// The classes beyond those every scanner uses, asked for by the scanners whose patterns tell them
// apart: AsciiBlock(text, i, kWithControls) and so on.
enum AsciiExtras : unsigned { kControlClass = 1, kUpperClass = 2, kSlashClass = 4 };
template <unsigned kExtras>
using AsciiExtrasTag = std::integral_constant<unsigned, kExtras>;
inline constexpr AsciiExtrasTag<kControlClass> kWithControls{};
inline constexpr AsciiExtrasTag<kUpperClass | kSlashClass> kWithUpperAndSlash{};

template <unsigned kExtras>
inline void ClassifySse2(const char* p, AsciiBlock& block);
template <unsigned kExtras>
[[gnu::target("avx2")]] inline void ClassifyAvx2(const char* p, AsciiBlock& block);

struct AsciiBlock {
  // In ASCII, \p{L} is A-Z and a-z, \p{N} 0-9 and \s TAB, LF, VT, FF, CR and space
  // (split_scanners_test checks the class table says so).
  uint64_t letter = 0, digit = 0, blank = 0, white = 0, crlf = 0, apostrophe = 0;
  uint64_t high = 0;   // bytes >= 0x80
  uint64_t valid = 0;  // bytes of the text (a block at the text's end is padded)
  uint64_t other = 0;  // [^\s\p{L}\p{N}] in ASCII
  // Asked for (kControlClass): C0 controls but white space, and DEL (those of `other` that are
  // not \p{P} or \p{S}).
  uint64_t control = 0;
  uint64_t upper = 0;  // asked for (kUpperClass): A-Z
  uint64_t slash = 0;  // asked for (kSlashClass): '/'
  uint64_t cont = 0;   // the bytes after the first of the non-ASCII characters taken (TakeCharacters)
  // The block's bits below `limit` can be decided from the block alone: those within the text and
  // two bytes short of the block's end and of the first non-ASCII byte (the lookahead of a
  // contraction). `limit == left`: the block holds the text's end.
  size_t left = 0, limit = 0;
  size_t after_high = 0;  // the offset after the block's last non-ASCII byte; 0: none

  // The 64 bytes at text[i] (i < text.size()); a block that the text ends is read as the text's
  // last 64 bytes, its masks shifted down to start at i, or, in a text shorter than that, where it
  // is when the 64 bytes lie in one page (past_end_reads.h), else from a zero-padded copy.
  template <unsigned kExtras = 0>
  AsciiBlock(std::string_view text, size_t i, AsciiExtrasTag<kExtras> = {}) : left(text.size() - i) {
    const char* p = text.data() + i;
    size_t shift = 0;
    alignas(16) char pad[64];
    if (left < 64) {
      if (text.size() >= 64) {
        shift = 64 - left;
        p -= shift;
      } else if (!InOnePage(p, 64)) {
        std::memset(pad, 0, sizeof pad);
        std::memcpy(pad, p, left);
        p = pad;
      }
    }
    if (HasAvx2()) {
      ClassifyAvx2<kExtras>(p, *this);
    } else {
      ClassifySse2<kExtras>(p, *this);
    }
    if (shift != 0) {
      letter >>= shift, digit >>= shift, blank >>= shift, white >>= shift, crlf >>= shift;
      apostrophe >>= shift, high >>= shift, control >>= shift, upper >>= shift, slash >>= shift;
    }
    valid = left >= 64 ? ~0ULL : (1ULL << left) - 1;
    // The bytes past the text (read in place) are no class's.
    letter &= valid, digit &= valid, blank &= valid, white &= valid, crlf &= valid, apostrophe &= valid;
    upper &= valid, slash &= valid;
    high &= valid;
    other = valid & ~(letter | digit | white | high);
    control &= valid & ~white;
    SetLimit();
  }

  // `limit` and `after_high` from `left` and the non-ASCII bytes left in `high`: two bytes short of
  // the block's end and of the first of them.
  void SetLimit() {
    limit = left >= 64 ? 62 : left;
    after_high = 0;
    if (high == 0) return;
    const size_t first = static_cast<size_t>(__builtin_ctzll(high));
    limit = std::min(limit, first >= 2 ? first - 2 : 0);
    after_high = 64 - static_cast<size_t>(__builtin_clzll(high));
  }

  // What a scanner's rules make of a non-ASCII character (TakeCharacters).
  enum class Taken { kLetter, kDigit, kOther, kUndecided };
  // Takes the block's non-ASCII characters, from its first up to the first one that
  // `classify(text, at, length)` leaves undecided (text[i]: the block's first byte): a letter's
  // bytes as letters, a number's as digits (for a pattern whose numbers are runs of any length),
  // an other's (a mark, punctuation, a symbol) as others, each byte after a character's first in
  // `cont`; and decides as far as that character. For a scanner whose rules treat every letter
  // alike, and every number and every other, a character of several bytes is then a run of its
  // class that only its first byte can begin a piece in (a rule that looks at the character
  // before a character's last byte reads it through Spread). Without this, one accented letter or
  // combining mark sent the rest of its block to the piece-by-piece search.
  template <typename Classify>
  void TakeCharacters(std::string_view text, size_t i, Classify classify) {
    uint64_t rest = high;  // its lowest bit begins a character: the block begins one
    while (rest != 0) {
      const size_t j = static_cast<size_t>(__builtin_ctzll(rest));
      size_t length;
      const Taken taken = classify(text, i + j, length);
      if (taken == Taken::kUndecided) break;
      const uint64_t bits = ((1ULL << length) - 1) << j;  // a character the block cuts loses its top bits
      (taken == Taken::kLetter ? letter : taken == Taken::kDigit ? digit : other) |= bits;
      cont |= bits & (bits << 1);
      rest &= ~bits;
    }
    high = rest;
    SetLimit();
  }

  // The bytes of the characters whose first bytes are in `first` (a taken character's bytes
  // after its first are in `cont`; an ASCII character is one byte).
  uint64_t Spread(uint64_t first) const {
    uint64_t bytes = first | ((first << 1) & cont);
    bytes |= (bytes << 1) & cont;
    return bytes | ((bytes << 1) & cont);
  }

  // The first offset after j not in `run` (64 when the run reaches the block's end).
  static size_t RunEnd(uint64_t run, size_t j) {
    const uint64_t rest = ~run & (~0ULL << j);
    return rest == 0 ? 64 : static_cast<size_t>(__builtin_ctzll(rest));
  }

  // Where white space other than CR/LF begins a piece under the tiktoken-style patterns' tail
  // `\s*[\r\n]+|\s+(?!\S)|\s+`: after a byte that is not white space; after CR/LF that a run of
  // punctuation took (`taken_crlf`, its `[\r\n]*`: white space after it begins a new run); after
  // other CR/LF when no CR/LF follows in the run (a run of spaces or tabs after CR/LF ending in one
  // more CR/LF belongs to `\s*[\r\n]+`); or a run's last byte before one of `non_white` (where
  // `\s+(?!\S)` gives it back). Lowers `limit` before a run whose end the block cannot see.
  uint64_t GapStarts(uint64_t taken_crlf, uint64_t non_white) {
    const uint64_t gap = white & ~crlf, p_white = white << 1;
    uint64_t after_crlf = gap & ((crlf & ~taken_crlf) << 1);
    for (uint64_t x = after_crlf; x != 0; x &= x - 1) {
      const size_t j = static_cast<size_t>(__builtin_ctzll(x));
      const size_t end = RunEnd(gap, j);
      if (end >= left) continue;              // the run ends the text: no CR/LF follows
      if (end >= 64 || (high >> end & 1)) {  // undecided here: stop before it
        limit = std::min(limit, j);
        continue;
      }
      if (crlf >> end & 1) after_crlf &= ~(1ULL << j);  // one follows
    }
    return gap & (~p_white | (p_white & (non_white >> 1)) | after_crlf | (taken_crlf << 1));
  }

  // Where the runs of `digit` begin a group of three (\p{N}{1,3} from each run's start): a run's
  // first digit and every third after it.
  static uint64_t ThreeDigitGroups(uint64_t digit) {
    uint64_t starts = digit & ~(digit << 1);
    for (uint64_t d = digit & (digit << 1) & (digit << 2) & (digit << 3); d != 0;) {  // four digits or more
      const size_t j = static_cast<size_t>(__builtin_ctzll(d));
      const size_t end = RunEnd(digit, j);
      for (size_t k = j; k < end; k += 3) starts |= 1ULL << k;
      d = end >= 64 ? 0 : d & (~0ULL << end);
    }
    return starts;
  }
};

#define TS_ASCII_CLASSES(V, ONES, SUB, SUBS, EQ, OR, ZERO, MASK, AT)                                                  \
  do {                                                                                                            \
    const auto is_blank = EQ(V, ONES(' '));                                                                         \
    block.high |= MASK(V) << (AT);                                                                                  \
    block.letter |= MASK(EQ(SUBS(SUB(OR(V, ONES(0x20)), ONES('a')), ONES('z' - 'a')), ZERO)) << (AT);              \
    block.digit |= MASK(EQ(SUBS(SUB(V, ONES('0')), ONES(9)), ZERO)) << (AT);                                        \
    block.blank |= MASK(is_blank) << (AT);                                                                          \
    block.white |= MASK(OR(is_blank, EQ(SUBS(SUB(V, ONES('\t')), ONES('\r' - '\t')), ZERO))) << (AT);             \
    block.crlf |= MASK(OR(EQ(V, ONES('\n')), EQ(V, ONES('\r')))) << (AT);                                          \
    block.apostrophe |= MASK(EQ(V, ONES('\''))) << (AT);                                                           \
    if constexpr ((kExtras & kControlClass) != 0)                                                                   \
      block.control |= MASK(OR(EQ(SUBS(V, ONES(0x1F)), ZERO), EQ(V, ONES(0x7F)))) << (AT);                         \
    if constexpr ((kExtras & kUpperClass) != 0)                                                                     \
      block.upper |= MASK(EQ(SUBS(SUB(V, ONES('A')), ONES('Z' - 'A')), ZERO)) << (AT);                              \
    if constexpr ((kExtras & kSlashClass) != 0) block.slash |= MASK(EQ(V, ONES('/'))) << (AT);                     \
  } while (false)

template <unsigned kExtras>
inline void ClassifySse2(const char* p, AsciiBlock& block) {
#define TS_MASK16(m) static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(m)))
  const __m128i zero = _mm_setzero_si128();
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    TS_ASCII_CLASSES(v, _mm_set1_epi8, _mm_sub_epi8, _mm_subs_epu8, _mm_cmpeq_epi8, _mm_or_si128, zero, TS_MASK16, 16 * k);
  }
#undef TS_MASK16
}

template <unsigned kExtras>
[[gnu::target("avx2")]] inline void ClassifyAvx2(const char* p, AsciiBlock& block) {
#define TS_MASK32(m) static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(m)))
  const __m256i zero = _mm256_setzero_si256();
  for (int k = 0; k < 2; ++k) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * k));
    TS_ASCII_CLASSES(v, _mm256_set1_epi8, _mm256_sub_epi8, _mm256_subs_epu8, _mm256_cmpeq_epi8, _mm256_or_si256, zero,
                     TS_MASK32, 32 * k);
  }
#undef TS_MASK32
}
#undef TS_ASCII_CLASSES

// Writes the pieces between the starts below the block's limit (bit 0, the block's first byte,
// begins one) to out[m...], offsets from `at` (the block's); returns where the last begins, or
// the text's end when the block holds it (its last piece written too).
template <typename Piece>
inline uint32_t AppendBlockPieces(uint64_t starts, const AsciiBlock& block, uint32_t at, Piece* out, size_t& m) {
  starts &= block.limit >= 64 ? ~0ULL : (1ULL << block.limit) - 1;
  uint32_t from = at;
  for (uint64_t s = starts & ~1ULL; s != 0; s &= s - 1) {
    const uint32_t to = at + static_cast<uint32_t>(__builtin_ctzll(s));
    out[m++] = {from, to};
    from = to;
  }
  if (block.limit == block.left) {
    const uint32_t end = at + static_cast<uint32_t>(block.left);
    out[m++] = {from, end};
    return end;
  }
  return from;
}

}  // namespace triton_studio::tok::scanners
#endif
