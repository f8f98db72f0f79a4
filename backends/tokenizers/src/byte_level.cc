// GPT-2's byte-level alphabet and split rule (see byte_level.h).
#include "byte_level.h"

#include <algorithm>
#include <cstring>

#include "scanners/char_classes.h"
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

// The kind of the character at p (text is valid UTF-8); its byte length in `len`. Beyond ASCII the
// classes are Oniguruma's (HF runs this pattern in Oniguruma, whose Unicode is newer than
// unicode_tables.inc's): \p{L}, \p{N} and \s are disjoint, so the class's three low bits pick the kind.
inline Kind KindAt(const char* p, size_t& len) {
  const Kind k = ByteKind(p);
  if (k != kMulti) {
    len = 1;
    return k;
  }
  const char32_t c = scanners::DecodeAt(std::string_view(p, 4), 0, len);
  static constexpr Kind kByBits[8] = {kOther, kLetter, kNumber, kLetter, kSpace, kLetter, kNumber, kLetter};
  static_assert(scanners::kLetter == 1 && scanners::kNumber == 2 && scanners::kSpace == 4);
  return kByBits[scanners::ClassOf(c) & 7];
}

// The end of the run of characters of kind k from q, any characters.
[[gnu::noinline]] const char* AnyRunEnd(const char* q, const char* end, Kind k) {
  size_t len;
  while (q < end && KindAt(q, len) == k) q += len;
  return q;
}

// The end of the run of ASCII letters from q, eight bytes at a time (SWAR) while eight remain: for
// x < 0x80, x + (0x80 - lo) sets the byte's high bit exactly when x >= lo, with no carry out.
inline const char* AsciiLetterRunEnd(const char* q, const char* end) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the SWAR scan takes the first byte as the lowest");
  constexpr uint64_t kEach = 0x0101010101010101ULL, kHigh = 0x80 * kEach;
  for (; end - q >= 8; q += 8) {
    uint64_t v;
    std::memcpy(&v, q, 8);
    const uint64_t x = (v | 0x20 * kEach) & 0x7F * kEach;                    // ASCII, lower-cased
    const uint64_t letter = (x + (0x80 - 'a') * kEach) & ~(x + (0x80 - 'z' - 1) * kEach) & ~v & kHigh;
    if (letter != kHigh) return q + (__builtin_ctzll(letter ^ kHigh) >> 3);
  }
  while (q < end && ByteKind(q) == kLetter) ++q;
  return q;
}

// The end of the run of ASCII characters of kind K from q: one bounds check per four bytes.
template <Kind K>
inline const char* AsciiRunEnd(const char* q, const char* end) {
  if constexpr (K == kLetter) {
    return AsciiLetterRunEnd(q, end);
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

// The end of the run of characters of kind K from q: ASCII inline, what follows beyond ASCII out
// of line.
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
  size_t len;
  Kind k = KindAt(p, len);
  const char* q = p + len;
  if (*p == ' ') {
    const Kind next = KindAt(q, len);
    if (next != kSpace) {
      k = next;
      q += len;
    }
  }
  if (k == kSpace) return SpaceEnd(p, q, end);
  return AnyRunEnd(q, end, k);
}

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
  const uintptr_t bias = reinterpret_cast<uintptr_t>(text.data()) - base;  // text pointer - bias = offset
  const auto offset = [bias](const char* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) - bias); };
  const char* const end = text.data() + text.size();
  for (const char* p = text.data(); p < end;) {
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
    if (piece == block.pieces + PieceBlock::kSize) {
      Append(block, piece, out);
      piece = block.pieces;
    }
    *piece++ = {offset(p), offset(q)};
    p = q;
  }
  Append(block, piece, out);
}

}  // namespace triton_studio::tok::byte_level
