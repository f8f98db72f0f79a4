// GPT-2's byte-level alphabet and split rule (see byte_level.h).
#include "byte_level.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "scanners/char_classes.h"
#include "scanners/scan_parts.h"
#include "utf8.h"

namespace triton_studio::tok::byte_level {

const std::array<char32_t, 256>& ByteToChar() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[b] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

int CharToByte(char32_t c) {
  static const std::array<int16_t, 324> table = [] {
    std::array<int16_t, 324> t{};
    t.fill(-1);
    const auto& fwd = ByteToChar();
    for (int b = 0; b < 256; ++b) t[fwd[b]] = static_cast<int16_t>(b);
    return t;
  }();
  return c < table.size() ? table[c] : -1;
}

void AppendAsChars(std::string_view bytes, std::string& out) {
  for (char c : bytes) utf8::Append(ByteToChar()[static_cast<unsigned char>(c)], out);
}

namespace {

// The classes GPT-2's pattern tells apart, and kMulti: a byte >= 0x80, whose character must be
// decoded and looked up.
enum Kind : uint8_t { kLetter, kNumber, kOther, kSpace, kMulti };

constexpr Kind AsciiKind(int b) {
  if ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') return kLetter;
  if (b >= '0' && b <= '9') return kNumber;
  if (b == ' ' || (b >= '\t' && b <= '\r')) return kSpace;
  return kOther;
}

// Every byte's kind: ASCII by the pattern's classes (the apostrophe is kOther: only a piece's first
// character can start a contraction), bytes >= 0x80 kMulti.
struct ByteKinds {
  Kind of[256];
  constexpr ByteKinds() : of() {
    for (int b = 0; b < 256; ++b) of[b] = b < 0x80 ? AsciiKind(b) : kMulti;
  }
};
constexpr ByteKinds kByte;

inline Kind ByteKind(const char* p) { return kByte.of[static_cast<unsigned char>(*p)]; }

// A kind from Oniguruma's classes (HF runs this pattern in Oniguruma, whose Unicode is newer than
// unicode_tables.inc's): \p{L}, \p{N} and \s are disjoint, so the class's three low bits pick it.
inline Kind KindOfClass(uint16_t cls) {
  static constexpr Kind kByBits[8] = {kOther, kLetter, kNumber, kLetter, kSpace, kLetter, kNumber, kLetter};
  static_assert(scanners::kLetter == 1 && scanners::kNumber == 2 && scanners::kSpace == 4);
  return kByBits[cls & 7];
}

// The kinds of U+0000..U+FFFF (every character of one to three UTF-8 bytes), so those need no
// class lookup; built once from the class table, on first use.
const Kind* BmpKinds() {
  static const Kind* const kinds = [] {
    auto* k = new Kind[0x10000];
    for (char32_t c = 0; c < 0x10000; ++c) k[c] = KindOfClass(scanners::ClassOf(c));
    return k;
  }();
  return kinds;
}

// The kind of the character at p (text is valid UTF-8), its byte length in `len`; `bmp` is
// BmpKinds().
inline Kind KindAt(const char* p, size_t& len, const Kind* bmp) {
  const auto b = [p](int i) { return static_cast<uint32_t>(static_cast<unsigned char>(p[i])); };
  const uint32_t b0 = b(0);
  if (b0 < 0x80) {
    len = 1;
    return kByte.of[b0];
  }
  if (b0 < 0xE0) {
    len = 2;
    return bmp[(b0 & 0x1F) << 6 | (b(1) & 0x3F)];
  }
  if (b0 < 0xF0) {
    len = 3;
    return bmp[(b0 & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F)];
  }
  len = 4;
  return KindOfClass(scanners::ClassOf((b0 & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F)));
}

// The end of the run of ASCII characters of kind K from q: one bounds check per four bytes.
template <Kind K>
inline const char* AsciiRunEnd(const char* q, const char* end) {
  if constexpr (K == kLetter) {
    return q + scanners::AsciiLettersEnd(std::string_view(q, end - q), 0);  // eight bytes a step
  } else {
    for (; end - q >= 4; q += 4) {
      if (ByteKind(q) != K) return q;
      if (ByteKind(q + 1) != K) return q + 1;
      if (ByteKind(q + 2) != K) return q + 2;
      if (ByteKind(q + 3) != K) return q + 3;
    }
    while (q < end && ByteKind(q) == K) ++q;
    return q;
  }
}

// The end of the run of characters of kind k from q, any characters (the path beyond ASCII).
[[gnu::noinline]] const char* AnyRunEnd(const char* q, const char* end, Kind k) {
  const Kind* const bmp = BmpKinds();
  size_t len;
  while (q < end && KindAt(q, len, bmp) == k) q += len;
  return q;
}

// The end of the run of characters of kind K from q: ASCII inline, from the first character
// beyond ASCII on out of line.
template <Kind K>
inline const char* RunEnd(const char* q, const char* end) {
  q = AsciiRunEnd<K>(q, end);
  return q < end && ByteKind(q) == kMulti ? AnyRunEnd(q, end, K) : q;
}

// The end of the white-space piece starting at p, whose first character ends at q:
// \s+(?!\S) leaves the run's last character to the next piece when a non-space follows; if that
// leaves nothing, \s+ takes the one character (white space is at most 3 bytes).
inline const char* SpaceEnd(const char* p, const char* q, const char* end) {
  const char* run = RunEnd<kSpace>(q, end);
  if (run == end) return run;
  const char* last = run - 1;
  while ((static_cast<unsigned char>(*last) & 0xC0) == 0x80) --last;
  return last > p ? last : q;
}

// The length of the contraction ('s 't 're 've 'm 'll 'd, case-sensitive) at p[0] == '\'', or 0.
inline size_t ContractionLength(const char* p, const char* end) {
  if (end - p < 2) return 0;
  const char a = p[1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (end - p < 3) return 0;
  const char b = p[2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// The end of a piece whose first character, or the one after its leading space, is beyond ASCII.
[[gnu::noinline]] const char* MultiPieceEnd(const char* p, const char* end) {
  const Kind* const bmp = BmpKinds();
  size_t len;
  Kind k = KindAt(p, len, bmp);
  const char* q = p + len;
  if (*p == ' ') {
    const Kind next = KindAt(q, len, bmp);
    if (next != kSpace) {
      k = next;
      q += len;
    }
  }
  if (k == kSpace) return SpaceEnd(p, q, end);
  return AnyRunEnd(q, end, k);
}

#if defined(__SSE2__)
// Where pieces start among the 16 bytes at p, all ASCII and none an apostrophe (which may start a
// contraction): bit j is set when a piece starts at p + j, bit 0 always (p starts one). 0 when the
// bytes are not all such: the scalar path decides. p[16], the character after them, must exist.
// In ASCII without contractions a piece starts where the kind changes, except after a space that
// leads the run it precedes, and at a white-space character followed by a non-space (the last
// character \s+(?!\S) leaves to the next piece; a leading space when it is ' ').
inline uint32_t AsciiPieceStarts(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const auto mask = [](__m128i m) { return static_cast<uint32_t>(_mm_movemask_epi8(m)); };
  const auto in = [](__m128i x, char lo, char hi) {
    return _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(static_cast<char>(lo - 1))),
                         _mm_cmplt_epi8(x, _mm_set1_epi8(static_cast<char>(hi + 1))));
  };
  if (mask(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_set1_epi8('\'')))) != 0) return 0;  // beyond ASCII, or '
  const uint32_t letter = mask(in(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z'));
  const uint32_t digit = mask(in(v, '0', '9'));
  const uint32_t blank = mask(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
  const uint32_t space = blank | mask(in(v, '\t', '\r'));
  const Kind next = ByteKind(p + 16);
  size_t len;
  const bool space_after = next == kSpace || (next == kMulti && KindAt(p + 16, len, BmpKinds()) == kSpace);
  const uint32_t space_next = space >> 1 | static_cast<uint32_t>(space_after) << 15;
  const uint32_t kind_change = (letter ^ letter << 1) | (digit ^ digit << 1) | (space ^ space << 1);
  return ((space & ~space_next) | (kind_change & ~(blank << 1)) | 1) & 0xFFFF;
}
#endif

// Pieces are written through a pointer into a block on the stack and appended to the caller's
// vector a block at a time: a piece costs a store and a comparison, not push_back's reloads of
// the vector's fields, and the vector grows only as it would for push_back.
struct PieceBlock {
  static constexpr size_t kSize = 256;
  using Piece = std::pair<uint32_t, uint32_t>;
  PieceBlock() {}  // leaves `pieces` uninitialized: each is written before it is read
  union {
    Piece pieces[kSize];
  };
};

[[gnu::noinline]] void Append(const PieceBlock& block, const PieceBlock::Piece* end,
                              std::vector<std::pair<uint32_t, uint32_t>>& out) {
  out.insert(out.end(), block.pieces, end);
}

}  // namespace

void SplitGpt2(std::string_view text, uint32_t base, std::vector<std::pair<uint32_t, uint32_t>>& out) {
  PieceBlock block;
  PieceBlock::Piece* piece = block.pieces;
  const auto room_for = [&](size_t n) {
    if (piece + n > block.pieces + PieceBlock::kSize) {
      Append(block, piece, out);
      piece = block.pieces;
    }
  };
  const char* const end = text.data() + text.size();
  const uintptr_t bias = reinterpret_cast<uintptr_t>(text.data()) - base;  // text pointer - bias = offset
  const auto offset = [bias](const char* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) - bias); };
  for (const char* p = text.data(); p < end;) {
#if defined(__SSE2__)
    // Sixteen ASCII bytes at a time while they hold a piece start beyond p.
    if (end - p > 16) {
      if (uint32_t starts = AsciiPieceStarts(p) & ~1u) {
        room_for(16);
        const uint32_t at = offset(p);
        uint32_t from = at;
        do {
          const uint32_t to = at + static_cast<uint32_t>(__builtin_ctz(starts));
          *piece++ = {from, to};
          from = to;
          starts &= starts - 1;
        } while (starts != 0);
        p += from - at;
        continue;
      }
    }
#endif
    // The first character (or, after a single space, the second) picks the alternative.
    Kind k = ByteKind(p);
    const char* q = p + 1;
    if (*p == ' ' && q < end) {
      // " ?X+": a single ASCII space leads a run of letters, numbers or others.
      const Kind next = ByteKind(q);
      if (next != kSpace) {
        k = next;
        ++q;
      }
    }
    if (k == kLetter) {
      q = RunEnd<kLetter>(q, end);
    } else if (k == kOther) {
      const size_t n = *p == '\'' ? ContractionLength(p, end) : 0;
      q = n != 0 ? p + n : RunEnd<kOther>(q, end);
    } else if (k == kSpace) {
      q = SpaceEnd(p, q, end);
    } else if (k == kNumber) {
      q = RunEnd<kNumber>(q, end);
    } else {
      q = MultiPieceEnd(p, end);
    }
    room_for(1);
    *piece++ = {offset(p), offset(q)};
    p = q;
  }
  Append(block, piece, out);
}

}  // namespace triton_studio::tok::byte_level
