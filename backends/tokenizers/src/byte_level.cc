// GPT-2's byte-level alphabet and split rule (see byte_level.h).
#include "byte_level.h"

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

// Character classes of the GPT-2 pattern, with an ASCII fast path.
enum Class : uint8_t { kLetter, kNumber, kSpace, kOtherChar };

constexpr Class AsciiClass(char32_t c) {
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return kLetter;
  if (c >= '0' && c <= '9') return kNumber;
  if (c == ' ' || (c >= '\t' && c <= '\r')) return kSpace;
  return kOtherChar;
}

struct AsciiTable {
  Class of[128];
  constexpr AsciiTable() : of() {
    for (char32_t c = 0; c < 128; ++c) of[c] = AsciiClass(c);
  }
};
constexpr AsciiTable kAscii;

// Beyond ASCII, the classes as Oniguruma has them (HF runs this pattern in Oniguruma, whose
// Unicode is newer than unicode_tables.inc's), in one table lookup.
inline Class ClassOf(char32_t c) {
  if (c < 0x80) return kAscii.of[c];
  const uint8_t k = scanners::ClassOf(c);
  if (k & scanners::kLetter) return kLetter;
  if (k & scanners::kNumber) return kNumber;
  if (k & scanners::kSpace) return kSpace;
  return kOtherChar;
}

struct Cursor {
  std::string_view s;
  // Decodes the code point at i (text is valid UTF-8); returns its byte length.
  inline size_t At(size_t i, char32_t& c) const {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      c = b;
      return 1;
    }
    size_t n;
    c = scanners::DecodeAt(s, i, n);  // inline: the text is valid UTF-8
    return n;
  }
  // End of the run of characters of class k starting at i.
  inline size_t RunEnd(size_t i, Class k) const {
    char32_t c;
    while (i < s.size()) {
      // ASCII runs (most of most text) in a tight loop.
      const auto b = static_cast<unsigned char>(s[i]);
      if (b < 0x80) {
        if (kAscii.of[b] != k) break;
        ++i;
        continue;
      }
      const size_t n = At(i, c);
      if (ClassOf(c) != k) break;
      i += n;
    }
    return i;
  }
};

inline size_t ContractionLength(std::string_view s, size_t i) {
  // Called with s[i] == '\''; the pattern is case-sensitive.
  if (i + 1 >= s.size()) return 0;
  const char a = s[i + 1];
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= s.size()) return 0;
  const char b = s[i + 2];
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

}  // namespace

void SplitGpt2(std::string_view text, uint32_t base, std::vector<std::pair<uint32_t, uint32_t>>& out) {
  const Cursor cur{text};
  size_t i = 0;
  while (i < text.size()) {
    char32_t c;
    const size_t n = cur.At(i, c);
    size_t end;
    if (c == '\'' && ContractionLength(text, i) != 0) {
      end = i + ContractionLength(text, i);
    } else {
      Class k = ClassOf(c);
      size_t start = i;
      if (c == ' ' && i + 1 < text.size()) {
        // " ?X+" alternatives: a single ASCII space may lead a run of letters, numbers or others.
        char32_t next;
        cur.At(i + 1, next);
        const Class nk = ClassOf(next);
        if (nk != kSpace) {
          k = nk;
          start = i + 1;
        }
      }
      if (k != kSpace) {
        end = cur.RunEnd(start, k);
      } else {
        // \s+(?!\S) takes the whitespace run minus its last character when a non-space follows;
        // if that leaves nothing, \s+ takes the single character.
        const size_t run_end = cur.RunEnd(i, kSpace);
        end = run_end;
        if (run_end < text.size()) {
          // Step back one code point (whitespace characters are at most 3 bytes).
          size_t last = run_end - 1;
          while ((static_cast<unsigned char>(text[last]) & 0xC0) == 0x80) --last;
          end = last > i ? last : i + n;
        }
      }
    }
    out.emplace_back(base + static_cast<uint32_t>(i), base + static_cast<uint32_t>(end));
    i = end;
  }
}

}  // namespace triton_studio::tok::byte_level
