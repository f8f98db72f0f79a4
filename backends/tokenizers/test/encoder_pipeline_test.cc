// Encoder pipelines (pairs, truncation, padding) at their edges, with the values Hugging Face
// `tokenizers` 0.23.2 gives for the same files and settings (the corpus-wide comparison is
// test/integration/tokenizers-encoder-parity.test.ts).
#include <gtest/gtest.h>

#include "test_tokenizers.h"

using triton_studio::tok::EncodeInput;
using triton_studio::tok::EncoderOptions;
using triton_studio::tok::PaddingParams;
using triton_studio::tok::TokenizerError;
using triton_studio::tok::TruncationParams;
using triton_studio::tok::TruncationStrategy;
using triton_studio::tok::testing::Load;
using Ids = std::vector<uint32_t>;

namespace {
const auto& Bert() { return Load("bert-base-uncased"); }

EncoderOptions Cut(size_t max_length, TruncationStrategy strategy = TruncationStrategy::kLongestFirst,
                   size_t stride = 0) {
  TruncationParams t;
  t.max_length = max_length;
  t.strategy = strategy;
  t.stride = stride;
  return {t, std::nullopt};
}

triton_studio::tok::Encoding One(const EncodeInput& in, const EncoderOptions& options, bool specials = true) {
  return Bert().EncodeBatch({in}, specials, options).at(0);
}
}  // namespace

TEST(EncoderPipeline, PairGetsBertTemplateAndTypeIds) {
  const auto e = One({"a b", std::string_view("v w")}, {});
  EXPECT_EQ(e.ids, (Ids{101, 1037, 1038, 102, 1058, 1059, 102}));
  EXPECT_EQ(e.type_ids, (Ids{0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(e.attention_mask, (Ids{1, 1, 1, 1, 1, 1, 1}));
}

TEST(EncoderPipeline, EmptySecondTextStillGetsItsSeparator) {
  const auto e = One({"a", std::string_view("")}, {});
  EXPECT_EQ(e.ids, (Ids{101, 1037, 102, 102}));
  EXPECT_EQ(e.type_ids, (Ids{0, 0, 0, 1}));
}

TEST(EncoderPipeline, WithoutSpecialTokensTheTemplateStillSetsTypeIds) {
  const auto e = One({"a", std::string_view("v")}, {}, false);
  EXPECT_EQ(e.ids, (Ids{1037, 1058}));
  EXPECT_EQ(e.type_ids, (Ids{0, 1}));
}

TEST(EncoderPipeline, LongestFirstCutsTheLongerTextFirst) {
  // max 7 - 3 specials = 4: "a" keeps 1, the second text 3.
  EXPECT_EQ(One({"a", std::string_view("v w x y z")}, Cut(7)).ids, (Ids{101, 1037, 102, 1058, 1059, 1060, 102}));
}

TEST(EncoderPipeline, MaxLengthBelowTheSpecialTokensKeepsTheFirstWordAsHf) {
  // HF subtracts the specials in usize (it wraps, so the exact cut is skipped) and its early
  // per-word limit keeps the first word: [CLS] a [SEP] for max_length 0 and 1.
  EXPECT_EQ(One({"a b c d e", std::nullopt}, Cut(0)).ids, (Ids{101, 1037, 102}));
  EXPECT_EQ(One({"a b c d e", std::nullopt}, Cut(1)).ids, (Ids{101, 1037, 102}));
  // Exactly the specials: nothing of the text is left.
  EXPECT_EQ(One({"a b c d e", std::nullopt}, Cut(2)).ids, (Ids{101, 102}));
  EXPECT_EQ(One({"a b c d e", std::string_view("v w x y z")}, Cut(2)).ids,
            (Ids{101, 1037, 1038, 102, 1058, 1059, 102}));
  EXPECT_EQ(One({"a b c d e", std::string_view("v w x y z")}, Cut(3)).ids, (Ids{101, 102, 102}));
}

TEST(EncoderPipeline, StrideNotBelowTheCutIsAClearErrorNotACrash) {
  // HF panics here ("`stride` must be strictly less than `max_len`") and aborts the process.
  try {
    One({"a b c d e f g", std::nullopt}, Cut(6, TruncationStrategy::kLongestFirst, 4));
    FAIL() << "expected an error";
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("stride 4 must be below the length 4"), std::string::npos) << e.what();
  }
  // A stride below the cut only shapes HF's overflow windows: the kept ids are the plain cut.
  EXPECT_EQ(One({"a b c d e f g", std::nullopt}, Cut(6, TruncationStrategy::kLongestFirst, 3)).ids,
            (Ids{101, 1037, 1038, 1039, 1040, 102}));
}

TEST(EncoderPipeline, OnlySecondWithoutAPairAndTooShortTextsAreRefused) {
  EXPECT_THROW(One({"a b c d e f g", std::nullopt}, Cut(5, TruncationStrategy::kOnlySecond)), TokenizerError);
  EXPECT_THROW(One({"a b c d e f g", std::string_view("v")}, Cut(6, TruncationStrategy::kOnlySecond)), TokenizerError);
  EXPECT_EQ(One({"a", std::string_view("v w x y z")}, Cut(6, TruncationStrategy::kOnlySecond)).ids,
            (Ids{101, 1037, 102, 1058, 1059, 102}));
}

TEST(EncoderPipeline, BatchLongestPadsEveryRowToAMultiple) {
  PaddingParams p;
  p.multiple_of = 4;
  p.pad_type_id = 1;
  p.left = true;
  const auto rows = Bert().EncodeBatch({{"a", std::nullopt}, {"a b c", std::nullopt}}, true, {std::nullopt, p});
  EXPECT_EQ(rows[0].ids, (Ids{0, 0, 0, 0, 0, 101, 1037, 102}));
  EXPECT_EQ(rows[0].type_ids, (Ids{1, 1, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(rows[0].attention_mask, (Ids{0, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(rows[1].ids, (Ids{0, 0, 0, 101, 1037, 1038, 1039, 102}));
}

TEST(EncoderPipeline, FixedPaddingNeverCutsALongerRow) {
  PaddingParams p;
  p.fixed_length = 3;
  const auto e = One({"a b c", std::nullopt}, {std::nullopt, p});
  EXPECT_EQ(e.ids, (Ids{101, 1037, 1038, 1039, 102}));
}

TEST(EncoderPipeline, TokenizerJsonSettingsAreTheDefaultsAndEncodeFollowsThem) {
  const auto tok = triton_studio::tok::Tokenizer::FromJson(R"({
    "truncation": {"max_length": 4, "strategy": "LongestFirst", "stride": 0, "direction": "Left"},
    "padding": {"strategy": {"Fixed": 6}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 9,
                "pad_type_id": 0, "pad_token": "[PAD]"},
    "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1, "b": 2, "c": 3, "[PAD]": 9}, "unk_token": "[UNK]"},
    "pre_tokenizer": {"type": "Whitespace"}})");
  const EncoderOptions defaults = tok->EncoderDefaults();
  ASSERT_TRUE(defaults.truncation && defaults.padding);
  EXPECT_TRUE(defaults.truncation->left);
  // Left keeps the last 4 ids; Fixed pads to 6 with pad_id 9 (HF: [3, 1, 2, 3, 9, 9]).
  EXPECT_EQ(tok->Encode("a b c a b c", true), (Ids{3, 1, 2, 3, 9, 9}));
}

// fuzz_components' own pipeline: HF loads a template whose "pair" is [] (it then encodes a pair to
// nothing); this library loads it too and refuses a pair with a clear error instead.
TEST(EncoderPipeline, AnEmptyPairTemplateLoadsAndRefusesPairsClearly) {
  const auto tok = triton_studio::tok::Tokenizer::FromJson(
      R"({"version": "1.0", "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "WhitespaceSplit"},
          "post_processor": {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}},
          "decoder": null, "model": {"type": "WordLevel", "vocab": {"<s>": 0, "a": 1, "b": 2}, "unk_token": "<s>"}})");
  EXPECT_EQ(tok->EncodeBatch({{"a b", std::nullopt}}, true, {}).at(0).ids, (Ids{0, 1, 2}));
  try {
    tok->EncodeBatch({{"a", std::string_view("b")}}, true, {});
    FAIL() << "a pair was encoded without a pair template";
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("no \"pair\" part"), std::string::npos) << e.what();
  }
}
