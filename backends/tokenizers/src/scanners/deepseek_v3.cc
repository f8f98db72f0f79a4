// DeepSeek-V3's Split patterns (see deepseek_v3.h) as scanners. Unlike the tiktoken-style
// patterns, the third one does not cover every character (a digit or a control character not
// before a letter matches nothing): the search then moves on one character, as Oniguruma's does,
// and the character stays in the text between matches. ScanDeepSeekSequence runs all three the way
// the file's Sequence does, in one pass over the text.
// Differential-fuzzed against Oniguruma on the exact patterns, and the sequence against the three
// in turn (fuzz/fuzz_split_scanners.cc).
#include "scanners/deepseek_v3.h"

#include <cstring>

#include "scanners/ascii_block.h"
#include "scanners/scan_parts.h"

namespace triton_studio::tok::scanners {
namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// The 32 ASCII punctuation and symbol characters the first alternative lists.
bool IsAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool LetterOrMark(uint16_t k, char) { return (k & (kLetter | kMark)) != 0; }
bool PunctOrSymbol(uint16_t k, char) { return (k & (kPunct | kSymbol)) != 0; }

// The first byte from p on that is an ASCII digit or not ASCII (where a \p{N} may start), eight
// bytes at a time.
size_t NextDigitOrHigh(std::string_view s, size_t p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x80 * kOnes;
  while (p + 8 <= s.size()) {
    uint64_t x;
    std::memcpy(&x, s.data() + p, 8);
    const uint64_t low = x & ~kHigh;  // bit 7 of each byte: >= '0', and > '9' (no carry crosses bytes)
    const uint64_t digits = (low + (0x80 - '0') * kOnes) & ~(low + (0x80 - '9' - 1) * kOnes) & ~x & kHigh;
    const uint64_t stops = digits | (x & kHigh);
    if (stops != 0) return p + (static_cast<size_t>(__builtin_ctzll(stops)) >> 3);  // little-endian
    p += 8;
  }
  while (p < s.size() && !(kByteKind[s[p]] & (kDigitByte | kHighByte))) ++p;
  return p;
}

// The first non-ASCII byte from p on, eight bytes at a time.
size_t NextHigh(std::string_view s, size_t p) {
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  while (p + 8 <= s.size()) {
    uint64_t x;
    std::memcpy(&x, s.data() + p, 8);
    if (const uint64_t stops = x & kHigh; stops != 0) return p + (static_cast<size_t>(__builtin_ctzll(stops)) >> 3);
    p += 8;
  }
  while (p < s.size() && static_cast<unsigned char>(s[p]) < 0x80) ++p;
  return p;
}

bool InCjkKana(char32_t c) { return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x4E00 && c <= 0x9FA5); }

// The end of the run of [一-龥぀-ゟ゠-ヿ] characters from p on.
size_t CjkKanaEnd(std::string_view s, size_t p) {
  size_t len;
  while (p < s.size() && static_cast<unsigned char>(s[p]) >= 0x80 && InCjkKana(DecodeAt(s, p, len))) p += len;
  return p;
}

}  // namespace

void ScanDigits1To3(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0, len;
  while ((i = NextDigitOrHigh(text, i)) < n) {
    if (!(ClassAt(text, i, len) & kNumber)) {
      i += len;
      continue;
    }
    const size_t end = DigitsEnd(text, i + len, 3);
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

void ScanCjkKana(std::string_view text, std::vector<Range>& matches) {
  const size_t n = text.size();
  size_t i = 0, len;
  while ((i = NextHigh(text, i)) < n) {
    if (!InCjkKana(DecodeAt(text, i, len))) {
      i += len;
      continue;
    }
    const size_t end = CjkKanaEnd(text, i + len);
    matches.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
}

namespace {

// The general path of ScanDeepSeekWords: the end of the match at i, or 0 when none starts there
// (`len`: the character's length).
size_t WordsPieceEnd(std::string_view text, size_t i, size_t& len) {
  const size_t n = text.size();
  const uint16_t k = ClassAt(text, i, len);
  const char c = text[i];
  size_t next_len = 0;
  const uint16_t next = i + len < n ? ClassAt(text, i + len, next_len) : uint16_t{0};
  if (IsAsciiPunct(c) && i + 1 < n && IsAsciiLetter(text[i + 1])) {
    return AsciiLettersEnd(text, i + 2);  // [!"#…~][A-Za-z]+
  }
  if (!IsCrLf(c) && !(k & (kLetter | kPunct | kSymbol)) && (next & (kLetter | kMark))) {
    return RunEnd(text, i + len, LetterOrMark);  // [^\r\n\p{L}\p{P}\p{S}] then [\p{L}\p{M}]+
  }
  if (k & (kLetter | kMark)) return RunEnd(text, i, LetterOrMark);  // [\p{L}\p{M}]+
  if ((k & (kPunct | kSymbol)) || (c == ' ' && (next & (kPunct | kSymbol)))) {
    //  ?[\p{P}\p{S}]+[\r\n]*
    size_t end = RunEnd(text, c == ' ' ? i + 1 : i, PunctOrSymbol);
    while (end < n && IsCrLf(text[end])) ++end;
    return end;
  }
  if (k & kSpace) return WhiteSpaceEnd(text, i);
  return 0;  // nothing matches here
}

// [\p{L}\p{M}]+ from p on (its first character already taken), ASCII letters eight at a time.
size_t LettersOrMarksEnd(std::string_view s, size_t p) {
  p = AsciiLettersEnd(s, p);
  if (p < s.size() && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, LetterOrMark);
  return p;
}

// [\p{P}\p{S}]+[\r\n]* from p on (its first character already taken).
size_t PunctEnd(std::string_view s, size_t p) {
  const size_t n = s.size();
  while (p < n && IsAsciiPunct(s[p])) ++p;
  if (p < n && kByteKind[s[p]] == kHighByte) p = RunEnd(s, p, PunctOrSymbol);
  while (p < n && kByteKind[s[p]] == kCrLfByte) ++p;
  return p;
}

// The words pattern's matches, each passed to emit(begin, end), until one ends at or after `stop`:
// returns where that one ends, or the text's end. ASCII text decided on byte kinds alone; anything
// that reaches a non-ASCII character where it matters goes to WordsPieceEnd.
template <typename Emit>
size_t ScanWords(std::string_view text, size_t stop, Emit&& emit) {
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const char c = text[i];
    const uint8_t kind = kByteKind[c];
    const uint8_t next = i + 1 < n ? kByteKind[text[i + 1]] : uint8_t{0};
    size_t end;
    if (kind == kLetterByte) {
      end = LettersOrMarksEnd(text, i + 1);  // [\p{L}\p{M}]+
    } else if (size_t l; kind == kHighByte && (ClassAt(text, i, l) & (kLetter | kMark))) {
      end = RunEnd(text, i + l, LetterOrMark);  // [\p{L}\p{M}]+ (a mark that leads ends the same)
    } else if (kind == kHighByte || next == kHighByte) {
      size_t len;
      end = WordsPieceEnd(text, i, len);
      if (end == 0) {
        i += len;
        continue;
      }
    } else if (IsAsciiPunct(c)) {
      // [!"#…~][A-Za-z]+, else [\p{P}\p{S}]+[\r\n]*
      end = next == kLetterByte ? AsciiLettersEnd(text, i + 2) : PunctEnd(text, i + 1);
    } else if (kind == kCrLfByte) {
      end = WhiteSpaceEnd(text, i);
    } else if (next == kLetterByte) {
      end = LettersOrMarksEnd(text, i + 2);  // white space, a digit or a control character leads
    } else if (c == ' ' && next == kOtherByte && IsAsciiPunct(text[i + 1])) {
      end = PunctEnd(text, i + 2);
    } else if (kind == kSpaceByte) {
      end = WhiteSpaceEnd(text, i);
    } else {
      ++i;  // a digit or a control character: nothing matches here
      continue;
    }
    emit(i, end);
    i = end;
    if (i >= stop) return i;
  }
  return n;
}

}  // namespace

void ScanDeepSeekWords(std::string_view text, std::vector<Range>& matches) {
  ScanWords(text, text.size(), [&](size_t b, size_t e) { matches.emplace_back(static_cast<uint32_t>(b), static_cast<uint32_t>(e)); });
}

namespace {

// The words pattern on text[from, to) as a haystack of its own (a piece the first two Splits
// leave), from a piece start: its matches and the text between them, appended as pieces, until a
// match ends at or after `stop` (where a block may take over) or the haystack ends; returns where
// it stopped. One out-of-line copy with everything inlined into it: with the scanner inlined at
// each call instead, g++ called the vector's append out of line, 14 instructions a piece
// (DeepSeek-V3 encode 3% slower).
template <typename Pieces>
[[gnu::noinline, gnu::flatten]] size_t WordsPieces(std::string_view text, size_t from, size_t to, size_t stop,
                                                   Pieces& pieces) {
  size_t prev = from;
  const size_t end = from + ScanWords(text.substr(from, to - from), stop > from ? stop - from : 0, [&](size_t b, size_t e) {
    if (from + b != prev) pieces.Push(prev, from + b);
    pieces.Push(from + b, from + e);
    prev = from + e;
  });
  if (end == to && prev != to) pieces.Push(prev, to);
  return end;
}

// The first number or CJK/kana character from p on, where the words pattern's haystack ends.
size_t NextNumberOrCjk(std::string_view text, size_t p) {
  const size_t n = text.size();
  size_t len;
  while ((p = NextDigitOrHigh(text, p)) < n) {
    if (static_cast<unsigned char>(text[p]) < 0x80) return p;  // an ASCII digit
    const char32_t c = DecodeAt(text, p, len);
    if (InCjkKana(c) || (ClassOf(c) & kNumber)) return p;
    p += len;
  }
  return n;
}

#if defined(__SSE2__)
// Sixty-four ASCII bytes at a time, as in cl100k_style.cc: where pieces start, from the bytes'
// classes as bit masks. In ASCII text the digits are the only haystack edges (\p{N}{1,3} takes
// them first), and a byte at j begins a piece when (P: the byte before, N: the byte after; the
// block begins at a piece start):
// - a digit: P is not a digit, or j is three digits on from the last digit that began one;
// - a letter: P is not a letter and not a lead (below);
// - punctuation or a symbol (\p{P}\p{S}: ASCII's 32): P is neither one nor ' ' (` ?[\p{P}\p{S}]+`
//   takes runs of them, after the ' ' that always begins a piece before them);
// - a control character: N is a letter, or P is not a control character that nothing matched (the
//   search moves over those, and the run of them is a piece);
// - CR or LF: P is neither punctuation (`[\r\n]*` after a run of it) nor white space;
// - other white space: P is not white space, or is CR/LF that punctuation took; or, inside a run,
//   the run has no CR/LF from j on and either P is CR/LF (`\s*[\r\n]+` ended) or j is the run's
//   last byte and neither a digit (the haystack's end, where `\s+(?!\S)` keeps the run whole) nor
//   white space follows.
// A lead is white space but CR/LF, or a control character, before a letter (`[^\r\n\p{L}\p{P}\p{S}]?`),
// or ASCII punctuation that begins a piece before an ASCII letter (`[!"#…~][A-Za-z]+`).
// A non-ASCII letter or mark is a run of letter bytes, non-ASCII punctuation or a symbol a run of
// punctuation bytes (AsciiBlock::TakeCharacters): in `[\p{L}\p{M}]+` and ` ?[\p{P}\p{S}]+` they
// are of a kind with the ASCII ones, and the one rule that tells them apart is the first
// alternative's: its run is ASCII letters, so a non-ASCII letter or mark after such a run begins a
// piece. Numbers, CJK and kana (the other Splits' edges), white space and other characters beyond
// ASCII are left undecided.
// Appends the pieces that begin in text[i, i + 64) and are decided there to out[m...]; returns
// where the next piece begins, or i when none could be decided (`try_from` is then past the
// block's last undecided character).
[[gnu::always_inline]] inline size_t AsciiPieces(std::string_view text, size_t i, Range* out, size_t& m, size_t& try_from) {
  AsciiBlock b(text, i, kWithControls);
  const uint64_t ascii_letter = b.letter, ascii_punct = b.other & ~b.control;
  if (b.high != 0) {
    b.TakeCharacters(text, i, [](std::string_view s, size_t at, size_t& length) {
      const char32_t c = DecodeAt(s, at, length);
      const uint16_t k = ClassOf(c);
      if (InCjkKana(c) || (k & kNumber)) return AsciiBlock::Taken::kUndecided;
      if (k & (kLetter | kMark)) return AsciiBlock::Taken::kLetter;
      return k & (kPunct | kSymbol) ? AsciiBlock::Taken::kOther : AsciiBlock::Taken::kUndecided;
    });
    if (b.high != 0) {
      try_from = i + b.after_high;
      if (b.limit == 0) return i;
    }
  }
  const uint64_t punct = b.other & ~b.control, gap = b.white & ~b.crlf;
  const uint64_t p_punct = punct << 1, p_white = b.white << 1, n_letter = b.letter >> 1;
  const uint64_t punct_start = punct & ~p_punct & ~(b.blank << 1);
  const uint64_t unmatched = b.control & ~n_letter;
  const uint64_t punct_lead = punct_start & ascii_punct & (ascii_letter >> 1);
  const uint64_t lead = ((gap | b.control) & n_letter) | punct_lead;
  // After the ASCII letters a punctuation lead took: adding a run's first bit carries past it.
  const uint64_t after_led = (ascii_letter + (punct_lead << 1)) & ~ascii_letter;
  uint64_t starts = (b.letter & ~(b.letter << 1) & ~(lead << 1)) | (b.letter & after_led);
  starts |= punct_start | (b.control & (n_letter | ~(unmatched << 1)));
  starts |= b.crlf & ~p_punct & ~p_white;
  starts |= AsciiBlock::ThreeDigitGroups(b.digit);
  starts |= b.GapStarts(((b.crlf + (b.crlf & p_punct)) ^ b.crlf) & b.crlf, b.valid & ~b.white & ~b.digit);
  return AppendBlockPieces(starts, b, static_cast<uint32_t>(i), out, m);
}
#endif

// Numbers (\p{N}{1,3}) and CJK runs are found first, as the first two Splits find them; each
// stretch between them and each CJK run is then a haystack of its own for the words pattern. A
// number's group is a piece as it is: the words pattern matches nothing inside it. ASCII text goes
// a block at a time (AsciiPieces), the rest piece by piece.
template <typename Pieces>
void ScanSequence(std::string_view text, Pieces& writer) {
  const size_t n = text.size();
  size_t i = 0;                          // a piece begins here
  size_t haystack_end = 0;               // when past i: the next number or CJK character
  [[maybe_unused]] size_t try_from = 0;  // where the next block may begin
  while (i < n) {
#if defined(__SSE2__)
    if (writer.Block(AsciiPieces, text, i, try_from)) continue;
#endif
    if (haystack_end <= i) haystack_end = NextNumberOrCjk(text, i);
    if (i < haystack_end) {
      i = WordsPieces(text, i, haystack_end, try_from, writer);
      continue;
    }
    size_t len;
    if (static_cast<unsigned char>(text[i]) >= 0x80 && InCjkKana(DecodeAt(text, i, len))) {
      const size_t end = CjkKanaEnd(text, i + len);
      WordsPieces(text, i, end, end, writer);  // kana punctuation, symbols and marks split a run
      i = end;
    } else {
      ClassAt(text, i, len);
      const size_t end = DigitsEnd(text, i + len, 3);
      writer.Push(i, end);
      i = end;
    }
  }
  writer.Flush();
}

}  // namespace

void ScanDeepSeekSequence(std::string_view text, std::vector<Range>& pieces) {
  PieceWriter writer(pieces);
  ScanSequence(text, writer);
}
size_t ScanDeepSeekSequenceInto(std::string_view text, Range* out) {
  PieceArray writer(out);
  ScanSequence(text, writer);
  return writer.size();
}

}  // namespace triton_studio::tok::scanners
