// Sixty-four bytes of ASCII text as class bit masks (bit j: the byte at j), for the scanners that
// decide where pieces start from each byte's neighbours instead of branching piece by piece on
// each byte's kind (those branches were most of a scanner's mispredictions). Each scanner's rules
// are its own (cl100k_style.cc, byte_level.cc); what they share is here: the classes, how far a
// block can decide, and writing the pieces out. x86-64 only (SSE2); elsewhere the scanners run
// piece by piece.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace triton_studio::tok::scanners {

struct AsciiBlock {
  // In ASCII, \p{L} is A-Z and a-z, \p{N} 0-9 and \s TAB, LF, VT, FF, CR and space
  // (split_scanners_test checks the class table says so).
  uint64_t letter = 0, digit = 0, blank = 0, white = 0, crlf = 0, apostrophe = 0;
  uint64_t high = 0;   // bytes >= 0x80
  uint64_t valid = 0;  // bytes of the text (a block at the text's end is padded)
  uint64_t other = 0;  // [^\s\p{L}\p{N}] in ASCII
  // The block's bits below `limit` can be decided from the block alone: those within the text and
  // two bytes short of the block's end and of the first non-ASCII byte (the lookahead of a
  // contraction). `limit == left`: the block holds the text's end.
  size_t left = 0, limit = 0;
  size_t after_high = 0;  // the offset after the block's last non-ASCII byte; 0: none

  // The 64 bytes at p, of which `left` (> 0) are the text's.
  AsciiBlock(const char* p, size_t left) : left(left) {
    alignas(16) char pad[64];
    if (left < 64) {
      std::memset(pad, 0, sizeof pad);
      std::memcpy(pad, p, left);
      p = pad;
    }
    // Ranges by wrapping subtraction and unsigned saturation: x - lo <= hi - lo as bytes.
    const __m128i zero = _mm_setzero_si128();
    const auto in = [zero](__m128i v, char lo, char hi) {
      return _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(v, _mm_set1_epi8(lo)), _mm_set1_epi8(static_cast<char>(hi - lo))),
                            zero);
    };
    const auto bits = [](__m128i m) { return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(m))); };
    for (int k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
      const int at = 16 * k;
      const __m128i is_blank = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
      high |= bits(v) << at;
      letter |= bits(in(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z')) << at;
      digit |= bits(in(v, '0', '9')) << at;
      blank |= bits(is_blank) << at;
      white |= bits(_mm_or_si128(is_blank, in(v, '\t', '\r'))) << at;
      crlf |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')))) << at;
      apostrophe |= bits(_mm_cmpeq_epi8(v, _mm_set1_epi8('\''))) << at;
    }
    valid = left >= 64 ? ~0ULL : (1ULL << left) - 1;
    high &= valid;
    other = valid & ~(letter | digit | white | high);
    limit = left >= 64 ? 62 : left;
    if (high != 0) {
      const size_t first = static_cast<size_t>(__builtin_ctzll(high));
      limit = std::min(limit, first >= 2 ? first - 2 : 0);
      after_high = 64 - static_cast<size_t>(__builtin_clzll(high));
    }
  }

  // The first offset after j not in `run` (64 when the run reaches the block's end).
  static size_t RunEnd(uint64_t run, size_t j) {
    const uint64_t rest = ~run & (~0ULL << j);
    return rest == 0 ? 64 : static_cast<size_t>(__builtin_ctzll(rest));
  }
};

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
