// Added tokens are found by a byte trie, leftmost-longest as HF's matcher: CodeGen's whitespace
// runs (31 down to 2 spaces, 9 down to 2 tabs) take the longest run at each position, and a
// special token between runs splits them.
#include <gtest/gtest.h>

#include "test_tokenizers.h"

using triton_studio::tok::testing::Load;
using Ids = std::vector<uint32_t>;

TEST(AddedVocabulary, LongestWhitespaceRunFirstThenTheRest) {
  // 40 spaces: the 31-space token (50257), then the 9-space one (50279).
  EXPECT_EQ(Load("codegen-350M-mono").Encode("a" + std::string(40, ' ') + "b", false),
            (Ids{64, 50257, 50279, 65}));
}

TEST(AddedVocabulary, TabRunsAndSpaceRunsAreSeparateTokens) {
  EXPECT_EQ(Load("codegen-350M-mono").Encode("def f():\n\t\t  return 1", false),
            (Ids{4299, 277, 33529, 198, 50294, 50286, 7783, 352}));
}

TEST(AddedVocabulary, SpecialTokenBetweenWhitespaceRuns) {
  EXPECT_EQ(Load("codegen-350M-mono").Encode("x  <|endoftext|>  y", false), (Ids{87, 50286, 50256, 50286, 88}));
}

TEST(AddedVocabulary, CodeGenExampleFromTheModelCard) {
  EXPECT_EQ(Load("codegen-350M-mono").Encode("def hello_world():\n    print('Hello, world!')", false),
            (Ids{4299, 23748, 62, 6894, 33529, 198, 50284, 4798, 10786, 15496, 11, 995, 0, 11537}));
}

TEST(AddedVocabulary, APatternCutOffByTheEndOfTheTextDoesNotMatch) {
  EXPECT_EQ(Load("gpt2").Encode("a<|endoftext|>", false).back(), 50256u);
  EXPECT_NE(Load("gpt2").Encode("a<|endoftext|", false).back(), 50256u);
}

// The search for the runs' starts reads 16 bytes at a time, then the text's last 17 bytes (or a
// zero-padded copy of a shorter text): a run must be found at every offset, of every length,
// whatever the text around it. A run of two or more is its own span, so the ids are the prefix's,
// the run's and the suffix's alone.
TEST(AddedVocabulary, ARunIsFoundAtEveryOffsetOfTheSearch) {
  const auto& codegen = Load("codegen-350M-mono");
  const auto ids = [&](const std::string& text) { return codegen.Encode(text, false); };
  for (const char* unit : {" ", "\t"}) {
    for (size_t len = 2; len <= 34; len += 4) {
      std::string run;
      while (run.size() < len) run += unit;
      for (size_t offset = 0; offset <= 40; ++offset) {
        const std::string prefix(offset, 'a');
        for (const std::string suffix : {"", "b", "bcdefghijklmnopqrstuvwxyz"}) {
          Ids want = ids(prefix);
          for (const uint32_t id : ids(run)) want.push_back(id);
          for (const uint32_t id : ids(suffix)) want.push_back(id);
          ASSERT_EQ(ids(prefix + run + suffix), want) << "run of " << len << " at " << offset << ", then '" << suffix << "'";
        }
      }
    }
  }
}
