// EncodeAppend, the batch form of Encode: each text's ids are exactly what Encode returns for it,
// appended after whatever the buffer already holds, for every kind of post-processing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_tokenizers.h"

using triton_studio::tok::Tokenizer;
using triton_studio::tok::testing::Load;
using Ids = std::vector<uint32_t>;

namespace {
const std::vector<std::string> kTexts = {
    "Hello world", "", "  two  spaces\n\nand lines", "<|endoftext|> [CLS] <s> ünïcödé 12345 😀",
    std::string(3000, 'x') + " a long word, then short texts after it"};

void ExpectSameAsEncode(const Tokenizer& tok, bool add_special_tokens) {
  Ids buffer = {7, 8, 9};  // earlier rows stay as they are
  Ids expected = buffer;
  for (const std::string& text : kTexts) {
    const Ids own = tok.Encode(text, add_special_tokens);
    expected.insert(expected.end(), own.begin(), own.end());
    tok.EncodeAppend(text, add_special_tokens, buffer);
    ASSERT_EQ(buffer, expected) << "after \"" << text.substr(0, 40) << "\"";
  }
}
}  // namespace

TEST(EncodeAppend, ByteLevelWithoutPostProcessing) {
  ExpectSameAsEncode(Load("gpt2"), true);
  ExpectSameAsEncode(Load("gpt2"), false);
}

TEST(EncodeAppend, TemplatePostProcessorAppliesToEachTextAlone) {
  for (const char* name : {"llama-3.1", "bert-base-uncased"}) {
    SCOPED_TRACE(name);
    ExpectSameAsEncode(Load(name), true);
    ExpectSameAsEncode(Load(name), false);
  }
}

TEST(EncodeAppend, TokenizerJsonTruncationAndPaddingApplyPerText) {
  const auto tok = Tokenizer::FromJson(R"({
    "truncation": {"max_length": 4, "strategy": "LongestFirst", "stride": 0, "direction": "Right"},
    "padding": {"strategy": {"Fixed": 6}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 9,
                "pad_type_id": 0, "pad_token": "[PAD]"},
    "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1, "b": 2, "c": 3, "[PAD]": 9}, "unk_token": "[UNK]"},
    "pre_tokenizer": {"type": "Whitespace"}})");
  Ids buffer;
  tok->EncodeAppend("a b c a b c", true, buffer);
  tok->EncodeAppend("c", true, buffer);
  EXPECT_EQ(buffer, (Ids{1, 2, 3, 1, 9, 9, 3, 9, 9, 9, 9, 9}));
}
