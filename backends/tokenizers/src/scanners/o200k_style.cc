// The o200k-style Split pattern (gpt-oss; see o200k_style.h for the pattern) as a scanner.
// Words are cased: an "upper" run [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] then a "lower" run
// [\p{Ll}\p{Lm}\p{Lo}\p{M}], so "HelloWorld" is "Hello" + "World". Oniguruma tries the
// alternatives left to right at each position and keeps the first that matches, each greedy with
// backtracking; each function below is what that search settles on for one alternative.
// Differential-fuzzed against Oniguruma on the exact pattern (fuzz/fuzz_split_scanners.cc).
#include "scanners/o200k_style.h"

#include "scanners/ascii_block.h"
#include "scanners/scan_parts.h"

namespace triton_studio::tok::scanners {
namespace {

constexpr uint16_t kUpperish = kUpper | kTitle | kModifier | kOtherLetter | kMark;
constexpr uint16_t kLowerish = kLower | kModifier | kOtherLetter | kMark;

bool Lowerish(uint16_t k, char) { return (k & kLowerish) != 0; }
bool Upperish(uint16_t k, char) { return (k & kUpperish) != 0; }

// [upper]*[lower]+ at t: the end, or 0. The greedy upper run gives characters back until the
// lower run can start: it starts right after the upper run if it can, else it is the last
// character of the upper run that is also "lower" (Lm, Lo, M are both), alone.
size_t UpperStarLowerPlus(std::string_view s, size_t t) {
  size_t p = t, last_lower_end = 0, len;
  while (p < s.size()) {
    const uint16_t k = ClassAt(s, p, len);
    if (!(k & kUpperish)) {
      if (k & kLowerish) return RunEnd(s, p, Lowerish);
      break;
    }
    p += len;
    if (k & kLowerish) last_lower_end = p;
  }
  return last_lower_end;
}

// [upper]+[lower]* at t: the end, or 0.
size_t UpperPlusLowerStar(std::string_view s, size_t t) {
  const size_t p = RunEnd(s, t, Upperish);
  return p == t ? 0 : RunEnd(s, p, Lowerish);
}

// The two word alternatives, each with its optional leading [^\r\n\p{L}\p{N}] tried first: the
// end of the word (before any contraction), or 0.
size_t WordEnd(std::string_view s, size_t i, size_t len, uint16_t k) {
  const bool can_lead = !IsCrLf(s[i]) && !(k & (kLetter | kNumber)) && i + len < s.size();
  size_t end = 0;
  if (can_lead) end = UpperStarLowerPlus(s, i + len);
  if (end == 0) end = UpperStarLowerPlus(s, i);
  if (end == 0 && can_lead) end = UpperPlusLowerStar(s, i + len);
  if (end == 0) end = UpperPlusLowerStar(s, i);
  return end;
}

bool IsAsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }

// AsciiWordEnd's answer when a character it must class is not ASCII.
constexpr size_t kNotAscii = ~size_t{0};

// The general path: the piece that starts at i, whatever the characters.
size_t PieceEnd(std::string_view text, size_t i) {
  const size_t n = text.size();
  size_t len;
  const uint16_t k = ClassAt(text, i, len);
  const char c = text[i];
  if (const size_t end = WordEnd(text, i, len, k); end != 0) return end + ContractionLength(text, end);
  if (k & kNumber) return DigitsEnd(text, i + len, 3);  // \p{N}{1,3}
  if (size_t l; IsOther(k, c) || (c == ' ' && i + 1 < n && IsOther(ClassAt(text, i + 1, l), 0))) {
    //  ?[^\s\p{L}\p{N}]+[\r\n/]*
    size_t end = RunEnd(text, IsOther(k, c) ? i : i + 1, IsOther);
    while (end < n && (IsCrLf(text[end]) || text[end] == '/')) ++end;
    return end;
  }
  return WhiteSpaceEnd(text, i);
}

// A word from t on, ASCII letters only: [A-Z]*[a-z]* (ASCII letters are Lu or Ll, so the upper
// run is [A-Z]*, the lower run [a-z]*, and a word with no lower-case letter is the upper run
// alone, the second alternative), then an optional contraction; or kNotAscii when the runs reach
// a non-ASCII character (it may be a letter or a mark: PieceEnd decides).
__attribute__((always_inline)) inline size_t AsciiWordEnd(std::string_view s, size_t t) {
  const size_t n = s.size();
  size_t p = t;
  while (p < n && IsAsciiUpper(s[p])) ++p;
  p = AsciiLowerEnd(s, p);
  if (p < n && kByteKind[s[p]] == kHighByte) return kNotAscii;
  return p + ContractionLength(s, p);
}

#if defined(__SSE2__)
// Sixty-four ASCII bytes at a time, as in cl100k_style.cc: where pieces start, from the bytes'
// classes as bit masks. In ASCII a word is [A-Z]*[a-z]* (letters are Lu or Ll) and the others' run
// ` ?[^\s\p{L}\p{N}]+[\r\n/]*` ends in a tail of CR, LF and '/' once a CR or LF follows it. A
// byte at j begins a piece when (P: the byte before, N: the byte after; the block begins at a
// piece start, so nothing is before bit 0):
// - a letter: P is not a letter and not a lead (below), or j is upper-case after lower-case (a
//   new word), or a contraction ended at j; never inside a contraction;
// - a digit: P is not a digit, or j is three digits on from the last digit that began one;
// - other ([^\s\p{L}\p{N}]): P is neither other in a run (not its tail) nor ' '; never in a tail
//   ('/') or a contraction;
// - CR or LF: P is neither other (the run's tail) nor white space;
// - other white space: as in cl100k_style.cc, with the tail's CR/LF where punctuation took one.
// A lead (`[^\r\n\p{L}\p{N}]?` before a word) is white space but CR/LF before a letter, or other
// that begins a piece before a letter. A contraction is an apostrophe right after a word's
// letter (not after another contraction) that ContractionLength accepts.
// Appends the pieces that begin in text[i, i + 64) and are decided by ASCII bytes to out[m...];
// returns where the next piece begins, or i when none could be decided (`try_from` is then past
// the block's last non-ASCII byte).
[[gnu::always_inline]] inline size_t AsciiPieces(std::string_view text, size_t i, Range* out, size_t& m, size_t& try_from) {
  AsciiBlock b(text, i, kWithUpperAndSlash);
  if (b.high != 0) {
    try_from = i + b.after_high;
    if (b.limit == 0) return i;
  }
  const uint64_t gap = b.white & ~b.crlf, lower = b.letter & ~b.upper;
  const uint64_t p_letter = b.letter << 1, p_white = b.white << 1, n_letter = b.letter >> 1;

  uint64_t contraction = 0, after_contraction = 0, inside_contraction = 0;
  for (uint64_t a = b.apostrophe & p_letter & n_letter; a != 0; a &= a - 1) {
    const size_t j = static_cast<size_t>(__builtin_ctzll(a));
    if (inside_contraction >> (j - 1) & 1) continue;  // the letter before ends a contraction
    if (const size_t len = ContractionLength(text, i + j); len != 0) {
      contraction |= 1ULL << j;
      if (j + len < 64) after_contraction |= 1ULL << (j + len);
      inside_contraction |= ((1ULL << len) - 2) << j;
    }
  }
  // The others' runs' tails: from a CR or LF right after other, the run of CR, LF and '/'.
  // A tail's '/' is other too, so a run of CR, LF and '/' can hold several CR/LF after other:
  // the tail is the run from its first (a run's part before it is the carry of adding its start).
  const uint64_t slash_or_crlf = b.crlf | b.slash;
  const uint64_t before = slash_or_crlf & ~(b.crlf & (b.other << 1));
  const uint64_t run_starts = before & ~(slash_or_crlf << 1);
  const uint64_t tail = slash_or_crlf & ~(((before + run_starts) ^ before) & before);
  const uint64_t in_run = b.other & ~tail;  // other that a run continues after
  const uint64_t other_start = b.other & ~(in_run << 1) & ~(b.blank << 1) & ~tail & ~contraction;
  const uint64_t lead = (gap | other_start) & n_letter;
  uint64_t starts = b.letter & ((~p_letter & ~(lead << 1)) | (b.upper & (lower << 1)) | after_contraction);
  starts &= ~inside_contraction;
  starts |= other_start | AsciiBlock::ThreeDigitGroups(b.digit);
  starts |= b.crlf & ~(b.other << 1) & ~p_white;
  starts |= b.GapStarts(tail & b.crlf, b.valid & ~b.white);
  return AppendBlockPieces(starts, b, static_cast<uint32_t>(i), out, m);
}
#endif

// The Oniguruma search, piece by piece: ASCII text decided on byte kinds alone (the common piece
// is a word, or a word after one space or punctuation character); anything that reaches a
// non-ASCII character where it matters goes to PieceEnd. ASCII text goes a block at a time
// (AsciiPieces) where it can; pieces go through a PieceWriter or a PieceArray.
template <typename Pieces>
void Scan(std::string_view text, Pieces& pieces) {
  const size_t n = text.size();
  size_t i = 0;
  [[maybe_unused]] size_t try_from = 0;  // where the next block may begin
  while (i < n) {
#if defined(__SSE2__)
    if (pieces.Block(AsciiPieces, text, i, try_from)) continue;
#endif
    const uint8_t kind = kByteKind[text[i]];
    size_t end;
    if (kind == kLetterByte) {
      end = AsciiWordEnd(text, i);
    } else if (kind & (kSpaceByte | kOtherByte)) {
      // May lead a word ([^\r\n\p{L}\p{N}]).
      const uint8_t next = i + 1 < n ? kByteKind[text[i + 1]] : uint8_t{kSpaceByte};
      if (next == kLetterByte) {
        end = AsciiWordEnd(text, i + 1);
      } else if (next == kHighByte) {
        end = kNotAscii;
      } else if (kind == kOtherByte) {
        end = OthersEnd<true>(text, i + 1);
      } else if (text[i] == ' ' && next == kOtherByte) {
        end = OthersEnd<true>(text, i + 2);
      } else {
        end = WhiteSpaceEnd(text, i);
      }
    } else if (kind == kDigitByte) {
      end = DigitsEnd(text, i + 1, 3);
    } else if (kind == kCrLfByte) {
      end = WhiteSpaceEnd(text, i);
    } else {
      end = kNotAscii;
    }
    if (end == kNotAscii) end = PieceEnd(text, i);
    pieces.Push(i, end);
    i = end;
  }
  pieces.Flush();
}

}  // namespace

void ScanO200k(std::string_view text, std::vector<Range>& matches) {
  PieceWriter pieces(matches);
  Scan(text, pieces);
}
size_t ScanO200kInto(std::string_view text, Range* out) {
  PieceArray pieces(out);
  Scan(text, pieces);
  return pieces.size();
}

}  // namespace triton_studio::tok::scanners
