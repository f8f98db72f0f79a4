// Texts read in place past their end (past_end_reads.h): the scanners' blocks and the UTF-8 check
// load whole blocks where the bytes after a short text lie in its page, and must give what they
// give on the text alone, whatever those bytes are; a text that ends at a page's end, before an
// unmapped page, is copied and must not fault. (The word cache's keys: word_cache_test.cc.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "guarded_page.h"
#include "onig_regex.h"
#include "past_end_reads.h"
#include "split_reference.h"
#include "split_scanner.h"
#include "test_tokenizers.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

using testing::GuardedPage;
using testing::kBytesAfter;

TEST(PastEndReads, OnlyBlocksInOnePageAreReadInPlace) {
  alignas(4096) static char page[2 * 4096];
#if defined(TS_ADDRESS_SANITIZER)
  EXPECT_FALSE(InOnePage(page, 64));  // AddressSanitizer: always the copy
#else
  EXPECT_TRUE(InOnePage(page, 64));
  EXPECT_TRUE(InOnePage(page + 4096 - 64, 64));
  EXPECT_FALSE(InOnePage(page + 4096 - 63, 64));
  EXPECT_TRUE(InOnePage(page + 4096 - 16, 16));
  EXPECT_FALSE(InOnePage(page + 4095, 16));
#endif
}

// Every scanner on short random texts (a block's worth or less), read in place before each kind
// of byte and copied at a page's end: Oniguruma's pieces of the text alone.
TEST(PastEndReads, ScannersGiveTheTextsPiecesWhateverFollowsIt) {
  GuardedPage page;
  uint64_t state = 0x2545F4914F6CDD1DULL;
  std::vector<Range> want, got;
  for (const std::string_view pattern : SplitScannerPatterns()) {
    const OnigRegex engine{std::string(pattern), "test"};
    const auto scan = FindSplitScanner(pattern).scan;
    for (int round = 0; round < 600; ++round) {
      const std::string text = reference::RandomScannerText(state, 80, round % 2 == 0);
      want.clear();
      engine.FindMatches(text, want);
      for (const char after : kBytesAfter) {
        got.clear();
        scan(page.AtStart(text, after), got);
        ASSERT_EQ(got, want) << pattern << "\non: " << nlohmann::json(text).dump() << " before byte " << int(after);
      }
      got.clear();
      scan(page.AtEnd(text), got);
      ASSERT_EQ(got, want) << pattern << "\non: " << nlohmann::json(text).dump() << " at a page's end";
    }
  }
}

TEST(PastEndReads, Utf8CheckJudgesTheTextAlone) {
  GuardedPage page;
  const std::string texts[] = {"", "a", "hello world", std::string(63, 'x'), std::string(64, 'y'),
                               std::string(65, 'z'), "caf\xC3\xA9", "tail \xC3", "\xFF", "ok\x80", "\xE4\xBD\xA0好"};
  for (const std::string& text : texts) {
    const bool valid = utf8::IsValid(std::string_view(text));
    for (const char after : kBytesAfter)
      EXPECT_EQ(utf8::IsValid(page.AtStart(text, after)), valid) << text.size() << " before " << int(after);
    EXPECT_EQ(utf8::IsValid(page.AtEnd(text)), valid) << text.size() << " bytes at a page's end";
  }
}

// Whole encodes (the scanner, then the word cache keying each word): the ids of the text alone.
TEST(PastEndReads, EncodeGivesTheTextsIdsWhateverFollowsIt) {
  GuardedPage page;
  const std::vector<std::string> texts = {"Hello world", " a b c", "don't stop", "12345 67", "x",
                                          "Caf\xC3\xA9 au lait, s'il vous pla\xC3\xAEt.", "  trailing spaces  ",
                                          "a word longer than sixteen bytes: internationalization"};
  for (const char* name : {"gpt2", "llama-3.1", "qwen3", "deepseek-v3", "gpt-oss"}) {
    const Tokenizer& tok = testing::Load(name);
    for (const std::string& text : texts) {
      const std::vector<uint32_t> want = tok.Encode(text, false);
      for (const char after : kBytesAfter) EXPECT_EQ(tok.Encode(page.AtStart(text, after), false), want) << name << ": " << text;
      EXPECT_EQ(tok.Encode(page.AtEnd(text), false), want) << name << ": " << text << " at a page's end";
    }
  }
}

}  // namespace
}  // namespace triton_studio::tok
