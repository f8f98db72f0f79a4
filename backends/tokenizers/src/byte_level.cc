// GPT-2's byte-level alphabet and split rule (see byte_level.h).
#include "byte_level.h"

#include "scanners/ascii_block.h"
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
// The pieces that begin in the 64 bytes at p in `text` (p begins one) and are decided there
// (scanners/ascii_block.h): writes them to out[m...], offsets from `at` (p's), and returns where
// the next piece begins (`end` when the text's last piece was written), or p when none could be
// decided (non-ASCII white space too close); `try_from` is then past the block's last such
// character. A non-ASCII letter, number or other is a run of bytes of its kind
// (AsciiBlock::TakeCharacters): the rules below look only at the byte before a character's first
// (and, for white space, at the byte after it), so they hold character by character.
// The pattern's choices are local; a byte begins a piece when (P: the byte before):
// - a letter, digit or other: P is not of its kind and not ' ' (` ?X+`: a space before a run
//   leads it: the last space of a run always begins a piece), or a contraction ended there;
// - white space: P is not white space, or it is the last of its run and a non-space follows
//   (`\s+(?!\S)` left it; a run that ends the text is one piece).
// A contraction ('s 't 're 've 'm 'll 'd) is an apostrophe that begins a piece (P neither other
// nor ' '), then its letters.
template <typename Piece>
[[gnu::always_inline]] inline const char* AsciiPieces(std::string_view text, const char* p, uint32_t at, Piece* out,
                                                      size_t& m, const char*& try_from) {
  const char* const end = text.data() + text.size();
  scanners::AsciiBlock b(text, static_cast<size_t>(p - text.data()));
  if (b.high != 0) {
    const Kind* const bmp = BmpKinds();
    b.TakeCharacters(text, static_cast<size_t>(p - text.data()), [bmp](std::string_view s, size_t i, size_t& length) {
      using Taken = scanners::AsciiBlock::Taken;
      switch (KindAt(s.data() + i, length, bmp)) {
        case kLetter:
          return Taken::kLetter;
        case kNumber:
          return Taken::kDigit;
        case kOther:
          return Taken::kOther;
        default:
          return Taken::kUndecided;  // white space
      }
    });
    if (b.high != 0) {
      try_from = p + b.after_high;
      if (b.limit == 0) return p;
    }
  }
  const uint64_t p_blank = b.blank << 1, p_other = b.other << 1;
  uint64_t after_contraction = 0, inside_contraction = 0;
  for (uint64_t a = b.apostrophe & ~p_other & ~p_blank & (b.letter >> 1); a != 0; a &= a - 1) {
    const size_t j = static_cast<size_t>(__builtin_ctzll(a));
    if (const size_t len = ContractionLength(p + j, end); len != 0) {
      if (j + len < 64) after_contraction |= 1ULL << (j + len);
      inside_contraction |= ((1ULL << len) - 2) << j;
    }
  }
  uint64_t starts = b.letter & ((~(b.letter << 1) & ~p_blank) | after_contraction) & ~inside_contraction;
  starts |= b.digit & ~(b.digit << 1) & ~p_blank;
  starts |= b.other & ~p_other & ~p_blank;
  starts |= b.white & (~(b.white << 1) | ((b.valid & ~b.white) >> 1));
  const uint32_t next = scanners::AppendBlockPieces(starts, b, at, out, m);
  return p + (next - at);
}
#endif

// The search with its pieces through a PieceWriter or a PieceArray, offset by `base`.
template <typename Pieces>
void Split(std::string_view text, uint32_t base, Pieces& pieces) {
  const char* const end = text.data() + text.size();
  const uintptr_t bias = reinterpret_cast<uintptr_t>(text.data()) - base;  // text pointer - bias = offset
  const auto offset = [bias](const char* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) - bias); };
#if defined(__SSE2__)
  // The block step by indices, as the writers take it.
  const auto block = [&](std::string_view t, size_t i, scanners::PieceBlock::Piece* out, size_t& m, size_t& try_i) {
    const char* try_p = t.data() + try_i;
    const char* next = AsciiPieces(t, t.data() + i, offset(t.data() + i), out, m, try_p);
    try_i = static_cast<size_t>(try_p - t.data());
    return static_cast<size_t>(next - t.data());
  };
  size_t try_from = 0;  // where the next block may begin
#endif
  for (const char* p = text.data(); p < end;) {
#if defined(__SSE2__)
    if (size_t i = static_cast<size_t>(p - text.data()); pieces.Block(block, text, i, try_from)) {
      p = text.data() + i;
      continue;
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
    pieces.Push(offset(p), offset(q));
    p = q;
  }
  pieces.Flush();
}

}  // namespace

void SplitGpt2(std::string_view text, uint32_t base, std::vector<std::pair<uint32_t, uint32_t>>& out) {
  scanners::PieceWriter pieces(out);
  Split(text, base, pieces);
}

size_t SplitGpt2Into(std::string_view text, std::pair<uint32_t, uint32_t>* out) {
  scanners::PieceArray pieces(out);
  Split(text, 0, pieces);
  return pieces.size();
}

}  // namespace triton_studio::tok::byte_level
