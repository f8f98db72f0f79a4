// BERT's normalizer (ASCII runs byte by byte, the rest by code points) and pre-tokenizer (white
// space and punctuation in one pass) give HF's pieces, for ASCII, accents, controls and non-ASCII
// punctuation mixed in one string.
#include <gtest/gtest.h>

#include "normalizers.h"
#include "pre_tokenizers.h"
#include "test_tokenizers.h"

using triton_studio::tok::testing::Load;
using Ids = std::vector<uint32_t>;
using Json = nlohmann::json;

namespace {
std::string Normalize(const Json& config, std::string text) {
  triton_studio::tok::MakeNormalizer(config, "normalizer")->Normalize(text);
  return text;
}
const Json kBert = {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
                    {"strip_accents", nullptr}, {"lowercase", true}};
}  // namespace

TEST(BertNormalizer, AsciiControlsDroppedTabsBecomeSpacesLettersLowercased) {
  EXPECT_EQ(Normalize(kBert, "Hello\tWORLD\x01\x7f!\r\n"), "hello world!  ");
}

TEST(BertNormalizer, WithoutCleanTextControlsStay) {
  Json raw = kBert;
  raw["clean_text"] = false;
  EXPECT_EQ(Normalize(raw, "A\tB\x01"), "a\tb\x01");
}

TEST(BertNormalizer, CombiningMarkAfterAnAsciiLetterIsStripped) {
  // "A" + U+0301 and precomposed U+00C9: the mark is removed whichever run it is in.
  EXPECT_EQ(Normalize(kBert, "A\xCC\x81" "B \xC3\x89" "cole"), "ab ecole");
}

TEST(BertNormalizer, ChineseCharactersArePadded) { EXPECT_EQ(Normalize(kBert, "a\xE4\xB8\xADz"), "a \xE4\xB8\xAD z"); }

TEST(BertTokenizer, MixedScriptsAsHuggingFace) {
  const auto& bert = Load("bert-base-uncased");
  EXPECT_EQ(bert.Encode("Hello\tWORLD\x01\x7f!", false), (Ids{7592, 2088, 999}));
  EXPECT_EQ(bert.Encode("A\xCC\x81" "B \xC3\x89" "cole\xC2\xA0Stra\xC3\x9F" "e", false), (Ids{11113, 12431, 2358, 27807}));
  EXPECT_EQ(bert.Encode("a\xC2\xBF" "b, c.d", false), (Ids{1037, 1094, 1038, 1010, 1039, 1012, 1040}));
}

TEST(BertPreTokenizer, SpacesRemovedPunctuationIsolated) {
  triton_studio::tok::Pieces pieces;
  pieces.text = "Hello, world!\xC2\xA0x\xC2\xBFy";
  pieces.ranges.assign(1, {0, static_cast<uint32_t>(pieces.text.size())});
  triton_studio::tok::MakePreTokenizer(Json{{"type", "BertPreTokenizer"}}, "pre_tokenizer")->PreTokenize(pieces);
  std::vector<std::string> got;
  for (const auto& [b, e] : pieces.ranges) got.emplace_back(pieces.text.substr(b, e - b));
  EXPECT_EQ(got, (std::vector<std::string>{"Hello", ",", "world", "!", "x", "\xC2\xBF", "y"}));
}
