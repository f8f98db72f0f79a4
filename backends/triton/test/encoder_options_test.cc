// A tokenize step's truncation/padding parameters over tokenizer.json's (encoder_options.cc): the
// precedence (parameters > tokenizer.json > the encoder default), and refusals that name the parameter.
#include <gtest/gtest.h>

#include <string>

#include "../src/encoder_options.h"

using triton_studio::glue::BackendError;
using triton_studio::glue::ModelConfig;
using triton_studio::steps::EncoderOptionsFromConfig;
using triton_studio::tok::Tokenizer;
using triton_studio::tok::TruncationStrategy;

namespace {
ModelConfig Config(const std::string& parameters) {
  const std::string json = R"({"name": "tokenize", "max_batch_size": 4, "parameters": {)" + parameters + "}}";
  return ModelConfig::FromJson(json.data(), json.data() + json.size());
}

std::unique_ptr<Tokenizer> WordLevel(const std::string& settings) {
  return Tokenizer::FromJson(R"({)" + settings + R"(
    "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1, "[PAD]": 7}, "unk_token": "[UNK]"},
    "added_tokens": [{"id": 7, "content": "[PAD]", "special": true, "single_word": false, "lstrip": false,
                      "rstrip": false, "normalized": false}],
    "pre_tokenizer": {"type": "Whitespace"}})");
}

std::string P(const std::string& key, const std::string& value) {
  return "\"" + key + R"(": {"string_value": ")" + value + "\"}";
}
}  // namespace

TEST(EncoderOptions, AnEncoderWithoutTokenizerTruncationIsCutAtTheDefault) {
  const auto tok = WordLevel("");
  auto o = EncoderOptionsFromConfig(Config(""), *tok, true);
  ASSERT_TRUE(o.truncation);
  EXPECT_EQ(o.truncation->max_length, 512u);
  EXPECT_EQ(o.truncation->strategy, TruncationStrategy::kLongestFirst);
  EXPECT_FALSE(o.padding);
  o = EncoderOptionsFromConfig(Config(P("default_max_length", "128")), *tok, true);
  EXPECT_EQ(o.truncation->max_length, 128u);
  // Not an encoder (an LLM prompt): nothing is cut unless asked.
  EXPECT_FALSE(EncoderOptionsFromConfig(Config(""), *tok, false).truncation);
}

TEST(EncoderOptions, TokenizerJsonBeatsTheDefaultAndParametersBeatBoth) {
  const auto tok = WordLevel(
      R"("truncation": {"max_length": 64, "strategy": "OnlySecond", "stride": 2, "direction": "Left"},)");
  auto o = EncoderOptionsFromConfig(Config(P("default_max_length", "128")), *tok, true);
  EXPECT_EQ(o.truncation->max_length, 64u);
  EXPECT_EQ(o.truncation->strategy, TruncationStrategy::kOnlySecond);
  o = EncoderOptionsFromConfig(
      Config(P("max_length", "16") + "," + P("truncation_strategy", "only_first") + "," + P("truncation_direction", "right")),
      *tok, true);
  EXPECT_EQ(o.truncation->max_length, 16u);
  EXPECT_EQ(o.truncation->strategy, TruncationStrategy::kOnlyFirst);
  EXPECT_EQ(o.truncation->stride, 2u);  // not overridden: tokenizer.json's
  EXPECT_FALSE(o.truncation->left);
}

TEST(EncoderOptions, PaddingParametersStartFromTheTokenizersPadId) {
  const auto tok = WordLevel(R"("padding": null,)");
  auto o = EncoderOptionsFromConfig(
      Config(P("padding_strategy", "fixed") + "," + P("padding_length", "8") + "," + P("pad_to_multiple_of", "4") +
             "," + P("padding_direction", "left")),
      *tok, true);
  ASSERT_TRUE(o.padding);
  EXPECT_EQ(o.padding->fixed_length, 8u);
  EXPECT_EQ(o.padding->multiple_of, 4u);
  EXPECT_TRUE(o.padding->left);
  EXPECT_EQ(o.padding->pad_id, 7u);  // [PAD]
  o = EncoderOptionsFromConfig(Config(P("padding_strategy", "batch_longest")), *tok, true);
  EXPECT_FALSE(o.padding->fixed_length);
}

TEST(EncoderOptions, RefusesWhatCannotBeMeantNamingTheParameter) {
  const auto tok = WordLevel("");
  auto refused = [&](const std::string& params) {
    try {
      EncoderOptionsFromConfig(Config(params), *tok, true);
    } catch (const BackendError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused(P("truncation_strategy", "longest")).find(
                "parameter 'truncation_strategy' is 'longest'; use one of longest_first, only_first, only_second"),
            std::string::npos);
  EXPECT_NE(refused(P("max_length", "0")).find("parameter 'max_length' must be a whole number >= 1, got '0'"),
            std::string::npos);
  EXPECT_NE(refused(P("stride", "1.5")).find("parameter 'stride' must be a whole number >= 0"), std::string::npos);
  EXPECT_NE(refused(P("padding_strategy", "fixed")).find("no 'padding_length'"), std::string::npos);
}
