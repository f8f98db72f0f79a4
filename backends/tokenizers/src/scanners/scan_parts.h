// Pieces the Split scanners share: class lookup with an ASCII fast path, runs of a class, the
// tiktoken-style contraction (?i:'s|'t|'re|'ve|'m|'ll|'d) and the white-space tail
// \s*[\r\n]+|\s+(?!\S)|\s+ that cl100k-, o200k- and DeepSeek-style patterns all end with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "scanners/char_classes.h"

namespace triton_studio::tok::scanners {

// Classes of the ASCII characters, from the same generated table (most text is ASCII).
struct AsciiClasses {
  uint16_t of[128];
  AsciiClasses() {
    for (char32_t c = 0; c < 128; ++c) of[c] = ClassOf(c);
  }
};
inline const AsciiClasses kAscii;

// The classes of the character at byte i; sets `len` to its byte length.
inline uint16_t ClassAt(std::string_view s, size_t i, size_t& len) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    len = 1;
    return kAscii.of[b];
  }
  return ClassOf(DecodeAt(s, i, len));
}

inline bool IsCrLf(char c) { return c == '\r' || c == '\n'; }

// What the scanners' ASCII fast paths need to know of a byte, one bit each (a byte has exactly
// one): the class bits above folded into the branches the tiktoken-style patterns take, from the
// same table. kHighByte: a byte of a non-ASCII character (the general path decides).
enum : uint8_t {
  kLetterByte = 1,  // \p{L}: A-Z, a-z
  kDigitByte = 2,   // \p{N}: 0-9
  kSpaceByte = 4,   // \s other than CR and LF
  kCrLfByte = 8,    // CR, LF
  kOtherByte = 16,  // [^\s\p{L}\p{N}]: punctuation, symbols, control characters
  kHighByte = 32,   // 0x80-0xFF
};
struct ByteKinds {
  uint8_t of[256];
  ByteKinds() {
    for (int b = 0; b < 256; ++b) {
      const uint16_t k = b < 0x80 ? kAscii.of[b] : 0;
      of[b] = b >= 0x80                ? kHighByte
              : (k & kLetter)          ? kLetterByte
              : (k & kNumber)          ? kDigitByte
              : IsCrLf(static_cast<char>(b)) ? kCrLfByte
              : (k & kSpace)           ? kSpaceByte
                                       : kOtherByte;
    }
  }
  uint8_t operator[](char c) const { return of[static_cast<unsigned char>(c)]; }
};
inline const ByteKinds kByteKind;

// The end of the run of bytes from p on that satisfy in(byte): four bytes per bounds check.
template <typename In>
inline size_t BytesEnd(std::string_view s, size_t p, In in) {
  for (; p + 4 <= s.size(); p += 4) {
    if (!in(s[p])) return p;
    if (!in(s[p + 1])) return p + 1;
    if (!in(s[p + 2])) return p + 2;
    if (!in(s[p + 3])) return p + 3;
  }
  while (p < s.size() && in(s[p])) ++p;
  return p;
}

// The end of the run of ASCII bytes b from p on with (b | kFold) in [kLo, kHi], eight bytes per
// step without a branch per byte (a word's end is then not a mispredicted loop exit: fewer
// cycles, though more instructions, than a byte loop). Bit 7 of each byte of
// `folded + (0x80 - kLo)` says >= kLo, of `folded + (0x7F - kHi)` says > kHi; no carry crosses
// bytes, each being < 0x80.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the eight-byte scans count the first byte from bit 0");
template <char kLo, char kHi, uint8_t kFold>
inline size_t AsciiRunEnd(std::string_view s, size_t p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x80 * kOnes;
  while (p + 8 <= s.size()) {
    uint64_t x;
    __builtin_memcpy(&x, s.data() + p, 8);
    const uint64_t folded = (x & ~kHigh) | (kFold * kOnes);
    const uint64_t in = (folded + (0x80 - kLo) * kOnes) & ~(folded + (0x7F - kHi) * kOnes) & ~x & kHigh;
    if (const uint64_t stops = in ^ kHigh; stops != 0) return p + (static_cast<size_t>(__builtin_ctzll(stops)) >> 3);
    p += 8;
  }
  return BytesEnd(s, p, [](char c) {
    const auto b = static_cast<unsigned char>(c | kFold);
    return static_cast<unsigned char>(c) < 0x80 && b >= kLo && b <= kHi;
  });
}

// [A-Za-z]* and [a-z]* from p on.
inline size_t AsciiLettersEnd(std::string_view s, size_t p) { return AsciiRunEnd<'a', 'z', 0x20>(s, p); }
inline size_t AsciiLowerEnd(std::string_view s, size_t p) { return AsciiRunEnd<'a', 'z', 0>(s, p); }

// End of the run of characters starting at i whose classes satisfy keep(classes, ascii byte or
// '\x80' for a non-ASCII character).
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
    const uint16_t k = ClassOf(DecodeAt(s, i, len));
    if (!keep(k, '\x80')) break;
    i += len;
  }
  return i;
}

// \p{N}{1,max_digits} whose first number character ends at `end`: where the match ends.
inline size_t DigitsEnd(std::string_view s, size_t end, int max_digits) {
  for (int d = 1; d < max_digits && end < s.size(); ++d) {
    size_t l;
    if (!(ClassAt(s, end, l) & kNumber)) break;
    end += l;
  }
  return end;
}

// [^\s\p{L}\p{N}] (the run after an optional space in the tiktoken-style patterns).
inline bool IsOther(uint16_t k, char) { return (k & (kLetter | kNumber | kSpace)) == 0; }

// [^\s\p{L}\p{N}]+ from p on (its first character already taken), then the trailing run of
// CR, LF and, when kSlash, '/' ([\r\n]* or [\r\n/]*): ASCII in a tight loop.
template <bool kSlash>
inline size_t OthersEnd(std::string_view s, size_t p) {
  const size_t n = s.size();
  while (p < n && kByteKind[s[p]] == kOtherByte) ++p;
  if (p < n && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, IsOther);
  while (p < n && (kByteKind[s[p]] == kCrLfByte || (kSlash && s[p] == '/'))) ++p;
  return p;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i]: the match length, or 0. Oniguruma's case folding adds
// U+017F LATIN SMALL LETTER LONG S to 's' (UTF-8 C5 BF); no other character folds to one of
// these letters.
inline size_t ContractionLength(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] != '\'') return 0;
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

// \s*[\r\n]+|\s+(?!\S)|\s+ at a white-space character s[i]: the match's end. \s*[\r\n]+ ends
// after the run's last CR or LF; else \s+(?!\S) leaves the run's last character to the next
// match when a non-space follows; else \s+.
inline size_t WhiteSpaceEnd(std::string_view s, size_t i) {
  const size_t n = s.size();
  // ASCII white space first: decided here unless the run reaches a non-ASCII character.
  size_t p = i, after_crlf = 0;
  for (; p < n; ++p) {
    const uint8_t k = kByteKind[s[p]];
    if (!(k & (kSpaceByte | kCrLfByte))) break;
    if (k == kCrLfByte) after_crlf = p + 1;
  }
  if (p == n || kByteKind[s[p]] != kHighByte) {
    if (after_crlf != 0) return after_crlf;
    return p == n || p - 1 == i ? p : p - 1;
  }
  const size_t run = RunEnd(s, i, [](uint16_t cls, char) { return (cls & kSpace) != 0; });
  for (size_t p = run; p > i;) {
    --p;
    if (IsCrLf(s[p])) return p + 1;
  }
  if (run == n) return run;
  size_t last = run - 1;
  while ((static_cast<unsigned char>(s[last]) & 0xC0) == 0x80) --last;
  return last > i ? last : run;
}

// The scanners write pieces through a pointer into a block on the stack, appended to the caller's
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

[[gnu::noinline]] inline void AppendBlock(const PieceBlock& block, const PieceBlock::Piece* end,
                                          std::vector<std::pair<uint32_t, uint32_t>>& out) {
  out.insert(out.end(), block.pieces, end);
}

// The step the block scanners share, for both writers below: `ascii_pieces(text, i, piece, m,
// try_from)` (a scanner's AsciiPieces) writes the pieces a block decides at `piece`, which moves
// past them; true, with i where the next piece begins, when it decided any.
template <typename AsciiPieces, typename Piece>
inline bool TryBlock(AsciiPieces ascii_pieces, std::string_view text, size_t& i, size_t& try_from, Piece*& piece) {
  size_t m = 0;
  const size_t next = ascii_pieces(text, i, piece, m, try_from);
  piece += m;
  if (next == i) return false;
  i = next;
  return true;
}

// A scanner's pieces on their way to `out` through a PieceBlock. (PieceArray is the same for an
// array.)
class PieceWriter {
 public:
  using Piece = PieceBlock::Piece;
  explicit PieceWriter(std::vector<Piece>& out) : out_(out) {}
  PieceWriter(const PieceWriter&) = delete;
  PieceWriter& operator=(const PieceWriter&) = delete;

  void Push(size_t begin, size_t end) {
    Room(1);
    *piece_++ = {static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
  }
  // Appends what the block holds to `out`: a scanner's last step.
  void Flush() {
    AppendBlock(block_, piece_, out_);
    piece_ = block_.pieces;
  }
  // TryBlock when a block may begin at i (i >= try_from).
  template <typename AsciiPieces>
  bool Block(AsciiPieces ascii_pieces, std::string_view text, size_t& i, size_t& try_from) {
    if (i < try_from) return false;
    Room(65);  // a block's pieces, and the text's last
    return TryBlock(ascii_pieces, text, i, try_from, piece_);
  }

 private:
  void Room(size_t count) {
    if (piece_ + count > block_.pieces + PieceBlock::kSize) Flush();
  }
  PieceBlock block_;
  Piece* piece_ = block_.pieces;
  std::vector<Piece>& out_;
};

// A scanner's pieces written straight into an array, for a caller that has room for them (a text
// has at most one piece per byte: no piece is empty). A batch of texts gets its pieces without the
// copy from a block on the stack to a vector (3% of a warm Llama-3.1 pass).
class PieceArray {
 public:
  using Piece = PieceBlock::Piece;
  explicit PieceArray(Piece* out) : first_(out), piece_(out) {}
  PieceArray(const PieceArray&) = delete;
  PieceArray& operator=(const PieceArray&) = delete;

  void Push(size_t begin, size_t end) { *piece_++ = {static_cast<uint32_t>(begin), static_cast<uint32_t>(end)}; }
  void Flush() {}
  template <typename AsciiPieces>
  bool Block(AsciiPieces ascii_pieces, std::string_view text, size_t& i, size_t& try_from) {
    return i >= try_from && TryBlock(ascii_pieces, text, i, try_from, piece_);
  }
  size_t size() const { return static_cast<size_t>(piece_ - first_); }

 private:
  Piece* const first_;
  Piece* piece_;
};

}  // namespace triton_studio::tok::scanners
