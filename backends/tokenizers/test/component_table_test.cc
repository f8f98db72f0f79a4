// Each stage's unknown-type error names the field and lists the types its table registers.
#include <gtest/gtest.h>

#include "normalizers.h"
#include "pre_tokenizers.h"

using Json = nlohmann::json;
using triton_studio::tok::TokenizerError;

TEST(ComponentTable, UnknownNormalizerListsTheRegisteredOnes) {
  try {
    triton_studio::tok::MakeNormalizer(Json{{"type", "Fancy"}}, "normalizer");
    FAIL() << "an unknown normalizer was accepted";
  } catch (const TokenizerError& e) {
    EXPECT_STREQ(e.what(),
                 "tokenizer.json: normalizer.type: unsupported normalizer 'Fancy' (supported: BertNormalizer, "
                 "Lowercase, StripAccents, NFD, NFKD, NFC, NFKC, Replace, Prepend, Strip, Precompiled, Nmt, "
                 "ByteLevel, Sequence)");
  }
}

TEST(ComponentTable, NestedUnknownPreTokenizerNamesItsPath) {
  const Json seq = {{"type", "Sequence"}, {"pretokenizers", Json::array({Json{{"type", "Fancy"}}})}};
  EXPECT_THROW(
      {
        try {
          triton_studio::tok::MakePreTokenizer(seq, "pre_tokenizer");
        } catch (const TokenizerError& e) {
          EXPECT_NE(std::string(e.what()).find("pre_tokenizer.pretokenizers[0].type: unsupported pre-tokenizer "
                                               "'Fancy' (supported: ByteLevel, "),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      TokenizerError);
}

TEST(ComponentTable, FixedLengthOfZeroIsRefusedAtLoad) {
  // Hugging Face's own library panics on it ("chunk size must be non-zero").
  try {
    triton_studio::tok::MakePreTokenizer(Json{{"type", "FixedLength"}, {"length", 0}}, "pre_tokenizer");
    FAIL() << "FixedLength 0 was accepted";
  } catch (const TokenizerError& e) {
    EXPECT_STREQ(e.what(), "tokenizer.json: pre_tokenizer.length: must be at least 1 (code points per piece)");
  }
}
