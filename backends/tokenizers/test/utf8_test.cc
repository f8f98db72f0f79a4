// utf8::IsValid, which every encode runs first, against the byte-by-byte rules of
// ValidSequenceLength (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF).
// IsValid is simdjson's validator, which reads 64-byte blocks and the text's last partial block
// from a padded copy: each sequence is checked both far from the end and as the text's last bytes.
#include <gtest/gtest.h>

#include <string>

#include "utf8.h"

namespace triton_studio::tok {
namespace {

bool ValidByTheRules(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8::ValidSequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

TEST(Utf8, IsValidAgreesWithTheRulesOnEverySequenceOfEdgeBytes) {
  // The bytes where the rules change: ASCII, each end of the continuation range and of its
  // narrower sub-ranges after E0, ED, F0 and F4, and lead bytes.
  const unsigned char kEdges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF4, 0xFF};
  size_t valid = 0, checked = 0;
  for (int lead = 0x80; lead <= 0xFF; ++lead)
    for (unsigned char b1 : kEdges)
      for (unsigned char b2 : kEdges)
        for (unsigned char b3 : kEdges) {
          const std::string seq{static_cast<char>(lead), static_cast<char>(b1), static_cast<char>(b2), static_cast<char>(b3)};
          for (const std::string& text : {"ab" + seq + "cdefghij", "ab" + seq, seq, seq.substr(0, 2), seq.substr(0, 3)}) {
            const bool want = ValidByTheRules(text);
            ASSERT_EQ(utf8::IsValid(text), want) << std::hex << lead << ' ' << int{b1} << ' ' << int{b2} << ' ' << int{b3}
                                                 << " in a text of " << std::dec << text.size() << " bytes";
            valid += want;
            ++checked;
          }
        }
  EXPECT_GT(valid, checked / 50);  // the sweep reaches valid texts too, not only invalid ones
}

// A stray byte, or a valid character, at every place of ASCII runs of every length up to three
// 16-byte blocks (the block and word loops, the run's end found by its bit, the tail read as the
// text's last word).
TEST(Utf8, IsValidFindsAStrayByteAnywhereInAnAsciiRun) {
  for (size_t len = 1; len <= 48; ++len) {
    for (size_t at = 0; at < len; ++at) {
      std::string text(len, 'x');
      text[at] = '\x80';
      EXPECT_FALSE(utf8::IsValid(text)) << "stray byte at " << at << " of " << len;
      text.replace(at, 1, "\xC3\xA9");  // é
      EXPECT_TRUE(utf8::IsValid(text)) << "é at " << at << " of " << len;
    }
    EXPECT_TRUE(utf8::IsValid(std::string(len, 'x')));
  }
}

}  // namespace
}  // namespace triton_studio::tok
