// Each stage's unknown-type error names the field and lists the types its table registers.
#include <gtest/gtest.h>

#include "normalizers.h"
#include "pre_tokenizers.h"

using Json = nlohmann::json;
using triton_studio::tok::TokenizerError;

TEST(ComponentTable, UnknownNormalizerListsTheRegisteredOnes) {
  try {
    triton_studio::tok::MakeNormalizer(Json{{"type", "Nmt"}}, "normalizer");
    FAIL() << "an unknown normalizer was accepted";
  } catch (const TokenizerError& e) {
    EXPECT_STREQ(e.what(),
                 "tokenizer.json: normalizer.type: unsupported normalizer 'Nmt' (supported: BertNormalizer, "
                 "Lowercase, StripAccents, NFD, NFKD, NFC, NFKC, Replace, Prepend, Strip, Precompiled, Sequence)");
  }
}

TEST(ComponentTable, NestedUnknownPreTokenizerNamesItsPath) {
  const Json seq = {{"type", "Sequence"}, {"pretokenizers", Json::array({Json{{"type", "FixedLength"}}})}};
  EXPECT_THROW(
      {
        try {
          triton_studio::tok::MakePreTokenizer(seq, "pre_tokenizer");
        } catch (const TokenizerError& e) {
          EXPECT_NE(std::string(e.what()).find("pre_tokenizer.pretokenizers[0].type: unsupported pre-tokenizer "
                                               "'FixedLength' (supported: ByteLevel, "),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      TokenizerError);
}
