// The Split pattern of Llama-3 / Llama-3.1 (tiktoken's cl100k_base pattern) and Qwen2/Qwen3's
// (the same with single digits), as a scanner:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Oniguruma tries the alternatives left to right at each position and keeps the first that
// matches, each greedy with backtracking; below, each branch is what that search settles on.
// Differential-fuzzed against Oniguruma on the exact patterns (fuzz/fuzz_split_scanners.cc).
#include "scanners/cl100k_style.h"

#include "scanners/ascii_block.h"
#include "scanners/scan_parts.h"

namespace triton_studio::tok::scanners {
namespace {

bool Letter(uint16_t k, char) { return (k & kLetter) != 0; }

// The general path: the piece that starts at i, whatever the characters.
template <int kMaxDigits>
size_t PieceEnd(std::string_view text, size_t i) {
  const size_t n = text.size();
  size_t len;
  const uint16_t k = ClassAt(text, i, len);
  const char c = text[i];
  if (const size_t l = ContractionLength(text, i); l != 0) return i + l;  // 'contraction
  if (k & kLetter) return RunEnd(text, i, Letter);  // [^\r\n\p{L}\p{N}]? takes nothing here: \p{L}+
  if (size_t l; !(k & kNumber) && !IsCrLf(c) && i + len < n && (ClassAt(text, i + len, l) & kLetter))
    return RunEnd(text, i + len, Letter);  // one leading non-letter, non-number, then \p{L}+
  if (k & kNumber) return DigitsEnd(text, i + len, kMaxDigits);
  size_t next_len = 0;
  const uint16_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint16_t{kSpace};
  if (IsOther(k, c) || (c == ' ' && IsOther(next, 0))) {
    //  ?[^\s\p{L}\p{N}]+[\r\n]*
    size_t end = RunEnd(text, IsOther(k, c) ? i : i + 1, IsOther);
    while (end < n && IsCrLf(text[end])) ++end;
    return end;
  }
  return WhiteSpaceEnd(text, i);
}

// \p{L}+ from p on, ASCII letters in a tight loop.
inline size_t LettersEnd(std::string_view s, size_t p) {
  p = AsciiLettersEnd(s, p);
  if (p < s.size() && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, Letter);
  return p;
}

#if defined(__SSE2__)
// Sixty-four bytes at a time: where pieces start, from the bytes' classes as
// bit masks (bit j: the byte at j), so that a piece costs a bit scan instead of the branches on
// each byte's kind that the piece-by-piece search takes (those were most of its mispredictions).
// In ASCII text the search's choices are local; a byte at j begins a piece when (P: the byte
// before, N: the byte after; the block begins at a piece start, so nothing is before bit 0):
// - a letter: P is not a letter and not a lead (below), or a contraction ended at j;
// - a digit: P is not a digit, or (cl100k) j is three digits on from the last digit that began one;
// - other ([^\s\p{L}\p{N}]): P is neither other nor ' ' (` ?[^\s\p{L}\p{N}]+` takes runs of them);
// - CR or LF: P is neither other (`[\r\n]*` after a run of others) nor white space;
// - other white space: P is not white space, or is CR/LF that a run of others took; or, inside a
//   run, the run has no CR/LF from j on and either P is CR/LF (`\s*[\r\n]+` ended) or j is the
//   run's last byte and a non-space follows (`\s+(?!\S)` left it).
// A lead (`[^\r\n\p{L}\p{N}]?` before a letter) is a white-space or other byte before a letter,
// unless it is other after other or ' ' (a run that `[^\s\p{L}\p{N}]+` takes whole) or an
// apostrophe that begins a contraction.
// A non-ASCII letter or other is a run of bytes of its class (AsciiBlock::TakeCharacters): no
// rule tells letters apart, or others, and each looks at a character's neighbours through its
// first byte (P) or its last (N), but a lead's "other after other", which is decided at the
// first byte and carried to the last. Non-ASCII numbers and white space are left undecided.
// The pieces that begin in text[i, i + 64) (i begins one) and are decided by ASCII bytes and
// non-ASCII letters and others: appends them to out[m...] and returns where the next piece begins
// (n when the text's last piece was appended), or i when none could be decided (an undecided
// character too close); `try_from` is then past the block's last such character.
template <int kMaxDigits>
[[gnu::always_inline]] inline size_t AsciiPieces(std::string_view text, size_t i, Range* out, size_t& m, size_t& try_from) {
  AsciiBlock b(text, i);
  if (b.high != 0) {
    b.TakeCharacters(text, i, [](std::string_view s, size_t at, size_t& length) {
      const uint16_t k = ClassAt(s, at, length);
      return (k & kLetter)             ? AsciiBlock::Taken::kLetter
             : (k & (kNumber | kSpace)) ? AsciiBlock::Taken::kUndecided
                                        : AsciiBlock::Taken::kOther;
    });
    if (b.high != 0) {
      try_from = i + b.after_high;
      if (b.limit == 0) return i;
    }
  }
  const uint64_t gap = b.white & ~b.crlf;  // white space but CR and LF
  const uint64_t p_letter = b.letter << 1, p_other = b.other << 1, p_blank = b.blank << 1, p_white = b.white << 1;
  const uint64_t n_letter = b.letter >> 1;

  // Contractions: an apostrophe that begins a piece, then a letter.
  uint64_t contraction = 0, after_contraction = 0, inside_contraction = 0;
  for (uint64_t a = b.apostrophe & ~p_other & ~p_blank & n_letter; a != 0; a &= a - 1) {
    const size_t j = static_cast<size_t>(__builtin_ctzll(a));
    if (const size_t len = ContractionLength(text, i + j); len != 0) {
      contraction |= 1ULL << j;
      if (j + len < 64) after_contraction |= 1ULL << (j + len);
      inside_contraction |= ((1ULL << len) - 2) << j;
    }
  }
  // An other that continues a run of others (or follows ' ') leads nothing: decided at a
  // character's first byte, where the byte before is the character before, and carried to its
  // last, where the letter after is.
  const uint64_t in_run = b.Spread(b.other & (p_other | p_blank) & ~b.cont);
  const uint64_t lead = (gap | b.other) & n_letter & ~in_run & ~contraction;
  uint64_t starts = b.letter & ((~p_letter & ~(lead << 1)) | after_contraction) & ~inside_contraction;
  starts |= b.other & ~p_other & ~p_blank;
  starts |= b.crlf & ~p_other & ~p_white;
  starts |= kMaxDigits == 1 ? b.digit : AsciiBlock::ThreeDigitGroups(b.digit);
  // CR/LF right after a run of others is that run's (`[\r\n]*`). Adding a run's first bit to
  // the run clears the whole run.
  starts |= b.GapStarts(((b.crlf + (b.crlf & p_other)) ^ b.crlf) & b.crlf, b.valid & ~b.white);
  return AppendBlockPieces(starts, b, static_cast<uint32_t>(i), out, m);
}
#endif

// The Oniguruma search, piece by piece: ASCII text decided on byte kinds alone (the common piece
// is a word, or a word after one space or punctuation character); anything that reaches a
// non-ASCII character where it matters goes to PieceEnd. Pieces go through a PieceWriter or a
// PieceArray.
template <int kMaxDigits, typename Pieces>
void Scan(std::string_view text, Pieces& pieces) {
  const size_t n = text.size();
  size_t i = 0;
  [[maybe_unused]] size_t try_from = 0;  // where the next block may begin
  while (i < n) {
#if defined(__SSE2__)
    if (pieces.Block(AsciiPieces<kMaxDigits>, text, i, try_from)) continue;
#endif
    const uint8_t kind = kByteKind[text[i]];
    size_t end;
    if (kind == kLetterByte) {
      end = LettersEnd(text, i + 1);
    } else if (kind & (kSpaceByte | kOtherByte)) {
      // May lead a word ([^\r\n\p{L}\p{N}]), unless an apostrophe starts a contraction.
      const uint8_t next = i + 1 < n ? kByteKind[text[i + 1]] : uint8_t{kSpaceByte};
      if (next == kLetterByte && text[i] != '\'') {
        end = LettersEnd(text, i + 2);
      } else if (size_t l; next == kHighByte && text[i] != '\'' && (ClassAt(text, i + 1, l) & kLetter)) {
        end = RunEnd(text, i + 1 + l, Letter);  // a non-ASCII letter after the lead
      } else if (next & (kHighByte | kLetterByte)) {  // a non-ASCII character next, or 'contraction
        end = PieceEnd<kMaxDigits>(text, i);
      } else if (kind == kOtherByte) {
        end = OthersEnd<false>(text, i + 1);
      } else if (text[i] == ' ' && next == kOtherByte) {
        end = OthersEnd<false>(text, i + 2);
      } else {
        end = WhiteSpaceEnd(text, i);
      }
    } else if (kind == kDigitByte) {
      end = DigitsEnd(text, i + 1, kMaxDigits);
    } else if (kind == kCrLfByte) {
      end = WhiteSpaceEnd(text, i);
    } else if (size_t l; ClassAt(text, i, l) & kLetter) {  // a non-ASCII letter
      end = RunEnd(text, i + l, Letter);
    } else {
      end = PieceEnd<kMaxDigits>(text, i);
    }
    pieces.Push(i, end);
    i = end;
  }
  pieces.Flush();
}

}  // namespace

void ScanCl100k(std::string_view text, std::vector<Range>& matches) {
  PieceWriter pieces(matches);
  Scan<3>(text, pieces);
}
void ScanQwen2(std::string_view text, std::vector<Range>& matches) {
  PieceWriter pieces(matches);
  Scan<1>(text, pieces);
}
size_t ScanCl100kInto(std::string_view text, Range* out) {
  PieceArray pieces(out);
  Scan<3>(text, pieces);
  return pieces.size();
}
size_t ScanQwen2Into(std::string_view text, Range* out) {
  PieceArray pieces(out);
  Scan<1>(text, pieces);
  return pieces.size();
}

}  // namespace triton_studio::tok::scanners
