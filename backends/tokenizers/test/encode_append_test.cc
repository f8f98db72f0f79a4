// EncodeAppend and EncodeFlat, the batch forms of Encode: each text's ids are exactly what Encode
// returns for it, appended after whatever the buffer already holds, for every kind of
// post-processing, and EncodeFlat's ends say where each text's ids end.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
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

namespace {
// Texts that take every way through EncodeFlat: added tokens inside and around text, invalid UTF-8
// (repaired into text of its own), empty texts, a text longer than a flush, one over the 1 MiB
// a batch scans in place, and enough short ones to cross several flushes.
std::vector<std::string> FlatTexts() {
  std::vector<std::string> texts = kTexts;
  texts.push_back("before<|endoftext|>after<|eot_id|><|begin_of_text|>x<|im_start|>user\nhi<|im_end|>");
  texts.push_back("bad \xFF\xFE bytes \xE2\x82 then text");
  texts.push_back("<|endoftext|>");
  texts.push_back("");
  std::string long_text;
  for (int i = 0; i < 12000; ++i) long_text += "word" + std::to_string(i % 97) + (i % 13 ? " " : ".\n");
  texts.push_back(long_text);
  std::string huge;
  while (huge.size() <= (size_t{1} << 20)) huge += long_text;
  texts.push_back(huge);
  for (int i = 0; i < 6000; ++i) texts.push_back("short text " + std::to_string(i) + (i % 7 ? "" : " <s> ünï"));
  return texts;
}

void ExpectFlatSameAsEncode(const Tokenizer& tok, bool add_special_tokens) {
  static const std::vector<std::string> texts = FlatTexts();
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  Ids flat = {7, 8, 9};  // earlier rows stay as they are
  std::vector<size_t> ends = {3};
  tok.EncodeFlat(views, add_special_tokens, flat, ends);
  ASSERT_EQ(ends.size(), texts.size() + 1);
  for (size_t i = 0; i < texts.size(); ++i) {
    const Ids own = tok.Encode(texts[i], add_special_tokens);
    ASSERT_EQ(Ids(flat.begin() + static_cast<std::ptrdiff_t>(ends[i]), flat.begin() + static_cast<std::ptrdiff_t>(ends[i + 1])), own)
        << "text " << i << ": \"" << texts[i].substr(0, 40) << "\"";
  }
  EXPECT_EQ(ends.back(), flat.size());
  EXPECT_EQ(Ids(flat.begin(), flat.begin() + 3), (Ids{7, 8, 9}));
}
}  // namespace

TEST(EncodeFlat, EachTextsIdsAreEncodesForEveryTokenizer) {
  for (const char* name : {"gpt2", "codegen-350M-mono", "llama-3", "llama-3.1", "qwen3", "deepseek-v3", "gpt-oss",
                           "smollm2-135m-instruct", "llama-2", "mistral-7b", "gemma-3", "bert-base-uncased"}) {
    SCOPED_TRACE(name);
    ExpectFlatSameAsEncode(Load(name), false);
    ExpectFlatSameAsEncode(Load(name), true);
  }
}

TEST(EncodeFlat, NoTextsAppendNothing) {
  Ids flat = {1};
  std::vector<size_t> ends;
  Load("gpt2").EncodeFlat({}, false, flat, ends);
  EXPECT_EQ(flat, Ids{1});
  EXPECT_TRUE(ends.empty());
}

TEST(EncodeFlat, ACallThatThrewLeavesNothingForTheNext) {
  const auto tok = Tokenizer::FromJson(R"({
    "model": {"type": "WordLevel", "vocab": {"a": 1, "b": 2}, "unk_token": "[UNK]"},
    "pre_tokenizer": {"type": "Whitespace"}})");
  Ids flat;
  std::vector<size_t> ends;
  EXPECT_THROW(tok->EncodeFlat({"a b", "a zzz"}, false, flat, ends), triton_studio::tok::TokenizerError);
  flat.clear();
  ends.clear();
  tok->EncodeFlat({"b a"}, false, flat, ends);
  EXPECT_EQ(flat, (Ids{2, 1}));
  EXPECT_EQ(ends, std::vector<size_t>{2});
}
