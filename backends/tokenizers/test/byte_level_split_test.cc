// ByteLevel's GPT-2 split (byte_level::SplitGpt2) against Oniguruma on kGpt2Pattern, the engine and
// pattern HF runs: on the inputs its branches hinge on, and piece by piece as the pattern reads.
// fuzz/fuzz_split_scanners.cc runs the same comparison on generated text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "byte_level.h"
#include "onig_regex.h"
#include "pre_tokenizers.h"
#include "split_reference.h"

namespace triton_studio::tok {
namespace {

std::vector<Range> Split(std::string_view text, uint32_t base = 0) {
  std::vector<Range> m;
  byte_level::SplitGpt2(text, base, m);
  return m;
}

std::vector<std::string> Pieces(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& [b, e] : Split(text)) out.emplace_back(text.substr(b, e - b));
  return out;
}

// Contractions (case-sensitive here, unlike cl100k's), an optional single space before letters,
// numbers or other characters (never before white space), white space runs before text, at the
// end and of every kind, ASCII words that run on into non-ASCII letters, numbers and marks, and
// the classes beyond ASCII (Oniguruma's Unicode: recent letters and numbers, Cf in no class).
const char* const kTricky[] = {
    "I'm you're we've they'll she'd it's don't",
    "I'M YOU'RE WE'VE 'S 'T 'Re 'rE 'vE 'Ll 'lL '\xC5\xBF",
    "'x '' 'r 'l 'v' ' s 'strange 'tis 'made 'db 'reply 'llama '",
    "hello world  two   three\tfour\xC2\xA0nbsp \xC2\xA0x",
    "(paren) [bracket] {brace} \"quote\" -dash _under .dot !!! ?!\n ...",
    "\ttabbed\n\nnewline\r\nwindows\rcarriage   \n   \n  x  \n",
    "1 12 123 1234 x1 a12b 3rd 5000km \xD9\xA1\xD9\xA2 \xE2\x85\xAB\xC2\xB2\xC2\xBD",
    "  leading and trailing  ",
    "end with spaces   ",
    "\n",
    " ",
    "  ",
    "a",
    "'",
    " '",
    " 's",
    "Caf\xC3\xA9 ABC\xC3\x89" "a abc\xCC\x81 .Ab\xC3\xA9 x\xF0\x9F\x98\x80 -\xC3\xA9t\xC3\xA9 1\xC3\xA9 12\xD9\xA1 !\xC2\xA9",
    " \xC3\xA9 \xD9\xA1 \xC2\xA9 \xE2\x80\x8D \xE3\x80\x80x \xE3\x80\x80 \xE3\x80\x80\xE3\x80\x80y \xC2\x85",
    "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C \xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF",
    "\xF0\x9F\x98\x80\xF0\x9F\x98\x81 emoji \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9 family",
    "e\xCC\x81t\xC3\xA9 cafe\xCC\x81 \xCC\x81x \xCC\x81\xCC\x81",
    "\xF0\x9D\x90\x80\xF0\x9D\x90\x81 \xF0\x9D\x9F\x8E\xF0\x9D\x9F\x8F \xF0\xAE\xAF\xA0\xF0\xB1\x8D\x90 \xF0\xB2\x8E\xAF",
    "\xC2\x85nel\xE2\x80\xA8ls\xE2\x80\xA9ps\xE3\x80\x80ideo\xE1\x9A\x80ogham \xE2\x80\xA8",
    "\x01\x02control\x7F \xEF\xBF\xBD\xEF\xBF\xBD",
    "def f(x):\n    return x  # comment\n\n\tif a != b: pass\n",
};

TEST(ByteLevelSplit, MatchesOnigurumaOnTheTrickyInputs) {
  const OnigRegex engine(std::string(byte_level::kGpt2Pattern), "test");
  for (const char* text : kTricky) {
    std::vector<Range> want;
    engine.FindMatches(text, want);
    EXPECT_EQ(Split(text), want) << "on: " << text;
  }
}

// Random text around SplitGpt2's 64-byte blocks (half of it all ASCII): see split_scanners_test.
TEST(ByteLevelSplit, MatchesOnigurumaOnRandomTextAroundItsBlocks) {
  const OnigRegex engine(std::string(byte_level::kGpt2Pattern), "test");
  uint64_t state = 0x2545F4914F6CDD1DULL;
  std::vector<Range> want;
  for (int round = 0; round < 10000; ++round) {
    const std::string text = reference::RandomScannerText(state, 300, round % 2 == 0);
    want.clear();
    engine.FindMatches(text, want);
    ASSERT_EQ(Split(text), want) << "on: " << text;
  }
}

TEST(ByteLevelSplit, PiecesReadAsThePatternSays) {
  // A contraction is its own piece; a single space leads the next word, number or symbol run;
  // the last space of a run leads the word after it; a trailing run stays whole.
  EXPECT_EQ(Pieces("I'm 12 cats!!  ok  "), (std::vector<std::string>{"I", "'m", " 12", " cats", "!!", " ", " ok", "  "}));
  // Case-sensitive contractions; a non-contraction apostrophe joins the other-character run.
  EXPECT_EQ(Pieces("DON'T 'x"), (std::vector<std::string>{"DON", "'", "T", " '", "x"}));
  // Only U+0020 leads: a tab or NBSP before a word is white space of its own.
  EXPECT_EQ(Pieces("a\tb\xC2\xA0" "c"), (std::vector<std::string>{"a", "\t", "b", "\xC2\xA0", "c"}));
}

// The form a batch of texts calls: the same ranges in an array with room for the text's bytes and
// PreTokenizer::kScanIntoSlack more, nothing written past them.
TEST(ByteLevelSplit, IntoAnArrayWritesWhatItAppends) {
  uint64_t state = 0x5851F42D4C957F2DULL;
  const Range unwritten{0xDEADBEEF, 0xDEADBEEF};
  for (int round = 0; round < 2000; ++round) {
    const std::string text = reference::RandomScannerText(state, 300, round % 2 == 0);
    std::vector<Range> out(text.size() + PreTokenizer::kScanIntoSlack, unwritten);
    const size_t count = byte_level::SplitGpt2Into(text, out.data());
    ASSERT_EQ(std::vector<Range>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(count)), Split(text))
        << "on: " << text;
    for (size_t k = count; k < out.size(); ++k) ASSERT_EQ(out[k], unwritten) << k;
  }
}

TEST(ByteLevelSplit, OffsetsAreShiftedByBase) {
  EXPECT_EQ(Split("ab cd", 100), (std::vector<Range>{{100, 102}, {102, 105}}));
}

}  // namespace
}  // namespace triton_studio::tok
