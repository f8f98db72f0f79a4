// Unigram as HF runs it: the best segmentation by score with HF's tie-breaking (the earliest
// start wins among equal sums), unknown characters fused into one unknown token or turned into
// <0xXX> bytes, and scores read from JSON as HF's serde_json reads them (not correctly rounded).
// Every expected id list is what npm `tokenizers` gives for the same vocabulary and text.
#include <gtest/gtest.h>

#include <cstdlib>

#include "serde_float.h"
#include "triton_studio/tokenizer.h"

using triton_studio::tok::SerdeJsonF64;
using triton_studio::tok::Tokenizer;
using Ids = std::vector<uint32_t>;

namespace {

std::unique_ptr<Tokenizer> UnigramTokenizer(const std::string& vocab, bool byte_fallback) {
  const std::string json = R"({"model": {"type": "Unigram", "unk_id": 0, "byte_fallback": )" +
                           std::string(byte_fallback ? "true" : "false") + R"(, "vocab": )" + vocab + "}}";
  return Tokenizer::FromJson(json);
}

}  // namespace

TEST(SerdeJsonF64, ReadsFloatsOneUlpOffWhereSerdeJsonDoes) {
  // A score from a trained Unigram: serde_json gives ...848, the correctly rounded double is ...847.
  EXPECT_EQ(SerdeJsonF64("-11.690506880341847"), std::strtod("-11.690506880341848", nullptr));
  EXPECT_NE(std::strtod("-11.690506880341847", nullptr), std::strtod("-11.690506880341848", nullptr));
  EXPECT_EQ(SerdeJsonF64("-9.803904789784918"), std::strtod("-9.803904789784918", nullptr));
  EXPECT_EQ(SerdeJsonF64("0"), 0.0);
  EXPECT_EQ(SerdeJsonF64("-2"), -2.0);
  EXPECT_EQ(SerdeJsonF64("1.5e3"), 1500.0);
  EXPECT_EQ(SerdeJsonF64("12345678901234567890123.5"), 12345678901234567890123.5);
  EXPECT_EQ(SerdeJsonF64("1e400"), std::nullopt);  // serde_json: number out of range
  EXPECT_EQ(SerdeJsonF64("1e-400"), 0.0);
}

TEST(Unigram, EqualSumsKeepTheSegmentationFoundFirst) {
  // "a"+"bc" and "ab"+"c" both score -3: the last piece starting earlier ("bc") wins, as in HF.
  const auto t = UnigramTokenizer(R"([["<unk>", 0], ["a", -1], ["b", -5], ["c", -1], ["ab", -2], ["bc", -2]])", false);
  EXPECT_EQ(t->Encode("abc", false), (Ids{1, 5}));
}

TEST(Unigram, UnknownCharactersFuseIntoOneUnknownToken) {
  const auto t = UnigramTokenizer(R"([["<unk>", 0], ["a", -1], ["b", -1]])", false);
  EXPECT_EQ(t->Encode("axyzb\xE6\x97\xA5" "a", false), (Ids{1, 0, 2, 0, 1}));
}

TEST(Unigram, ByteFallbackSpellsUnknownRunsInBytes) {
  const auto t = UnigramTokenizer(
      R"([["<unk>", 0], ["a", -1], ["<0x78>", -3], ["<0x79>", -3], ["<0xE6>", -3], ["<0x97>", -3], ["<0xA5>", -3]])",
      true);
  EXPECT_EQ(t->Encode("axy\xE6\x97\xA5", false), (Ids{1, 2, 3, 4, 5, 6}));
  // A run with a byte that has no token falls back to the unknown token as a whole.
  EXPECT_EQ(t->Encode("axz", false), (Ids{1, 0}));
}

TEST(Unigram, ScoresAreSummedFromTheDoublesHfHolds) {
  // Equal sums only after serde_json's rounding of the 15-character piece's score.
  const std::string vocab = R"([["<unk>", 0], ["#", -20], ["###############", -11.690506880341847],
                                ["################", -9.803904789784918], ["x", -1.114979021274399]])";
  const auto t = UnigramTokenizer(vocab, false);
  EXPECT_EQ(t->Encode("x" + std::string(79, '#'), false), (Ids{4, 2, 3, 3, 3, 3}));
}

TEST(Unigram, AnUnkIdOutsideTheVocabularyIsRefused) {
  try {
    Tokenizer::FromJson(R"({"model": {"type": "Unigram", "unk_id": 5, "vocab": [["a", 0]]}})");
    FAIL() << "no error";
  } catch (const triton_studio::tok::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("model.unk_id: is not an index of the vocabulary (1 pieces)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Unigram, APieceListedTwiceDecodesFromEitherIdAndEncodesToTheLast) {
  // Found by fuzz_components (its vocabulary lists "o" twice): HF reads an id's piece from the
  // list, and looks a piece up in a map where the last id wins.
  const auto t = UnigramTokenizer(R"([["<unk>", 0], ["o", -1], ["x", -1], ["o", -2]])", false);
  EXPECT_EQ(t->Encode("ox", false), (Ids{3, 2}));
  EXPECT_EQ(t->Decode({1, 2, 3}, false), "o x o");
}
