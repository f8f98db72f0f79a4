// The Precompiled normalizer (SentencePiece's compiled charsmap) and the grapheme clusters it walks.
// Expected normalizations are HF tokenizers' (npm `tokenizers`, precompiled(bytes).normalizeString)
// on the charsmap of test/fixtures/tokenizers/precompiled/xlm-roberta-nmt_nfkc.json; cluster
// lengths follow UAX #29 (Unicode 16). tokenizers-precompiled.test.ts checks every code point.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "graphemes.h"
#include "normalizers.h"
#include "precompiled.h"

using Json = nlohmann::json;
using triton_studio::tok::DecodeBase64;
using triton_studio::tok::MakeNormalizer;
using triton_studio::tok::TokenizerError;
namespace graphemes = triton_studio::tok::graphemes;

namespace {

// A string literal with its embedded NUL bytes.
template <size_t N>
std::string Bytes(const char (&s)[N]) {
  return std::string(s, N - 1);
}

const Json& XlmrCharsmapNode() {
  static const Json node = [] {
    std::ifstream in(std::string(TS_TEST_FIXTURES_DIR) + "/tokenizers/precompiled/xlm-roberta-nmt_nfkc.json");
    std::stringstream text;
    text << in.rdbuf();
    return Json::parse(text.str())["normalizer"]["normalizers"][0];
  }();
  return node;
}

std::string ErrorOf(const Json& node) {
  try {
    MakeNormalizer(node, "normalizer");
  } catch (const TokenizerError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string Charsmap(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += digits[v >> 18 & 63];
    out += digits[v >> 12 & 63];
    out += i + 1 < bytes.size() ? digits[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

}  // namespace

TEST(Precompiled, NormalizesAsHuggingFace) {
  const auto normalizer = MakeNormalizer(XlmrCharsmapNode(), "normalizer");
  const std::pair<std::string, std::string> cases[] = {
      {Bytes("\xef\xac\x81\xe2\x91\xa0\xc2\xbd"), Bytes("fi11\xe2\x81\x84"
                                                        "2")},
      // A 6-byte cluster goes code point by code point: no composition of the voiced mark.
      {Bytes("\xef\xbd\xb6\xef\xbe\x9e"), Bytes("\xe3\x82\xab\xe3\x82\x99")},
      {Bytes("e\xcc\x81"), Bytes("\xc3\xa9")},
      // A cluster under 6 bytes takes its shortest known prefix's replacement: U+0302 is lost.
      {Bytes("A\xcc\x81\xcc\x82"), Bytes("\xc3\x81")},
      {Bytes("\xe2\x85\xa9\xcc\x88"), Bytes("X")},
      {Bytes("tab\x09here\x0d\x0a"), Bytes("tab here ")},
      {Bytes("a\x00"
             "b"),
       Bytes("a\x00"
             "b")},
      {Bytes("\xc2\xa0x\xe3\x80\x80"), Bytes(" x ")},
      {Bytes("plain ascii"), Bytes("plain ascii")},
  };
  for (const auto& [input, expected] : cases) {
    std::string text = input;
    normalizer->Normalize(text);
    EXPECT_EQ(text, expected) << "input " << Json(input).dump();
  }
}

TEST(Precompiled, Base64IsStandardAndPadded) {
  std::string out;
  EXPECT_TRUE(DecodeBase64("aGVsbG8=", &out));
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(DecodeBase64("", &out));
  EXPECT_EQ(out, "");
  EXPECT_FALSE(DecodeBase64("aGVsbG8", &out));   // unpadded
  EXPECT_FALSE(DecodeBase64("aGVsbG9=", &out));  // non-zero bits in the padding
  EXPECT_FALSE(DecodeBase64("aG=sbG8=", &out));  // padding inside
  EXPECT_FALSE(DecodeBase64("aGVs_G8=", &out));  // URL-safe alphabet
}

TEST(Precompiled, MalformedCharsmapsAreRefusedWithTheField) {
  const auto node = [](const std::string& base64) {
    return Json{{"type", "Precompiled"}, {"precompiled_charsmap", base64}};
  };
  EXPECT_NE(ErrorOf(node("AAA=")).find("normalizer.precompiled_charsmap: charsmap shorter than its 4-byte header"),
            std::string::npos);
  EXPECT_NE(ErrorOf(node(Charsmap(Bytes("\x10\x00\x00\x00xxxx")))).find("trie size 16 exceeds the charsmap"),
            std::string::npos);
  EXPECT_NE(ErrorOf(node(Charsmap(Bytes("\x04\x00\x00\x00\x00\x00\x00\x00\xff")))).find("not valid UTF-8"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Json{{"type", "Precompiled"}}).find("precompiled_charsmap: missing"), std::string::npos);
  EXPECT_NE(ErrorOf(Json{{"type", "Precompiled"}, {"precompiled_charsmap", "AAAAAA=="}, {"x", 1}})
                .find("normalizer.x: unsupported option"),
            std::string::npos);
}

TEST(Precompiled, TrieOffsetsPastTheArrayMatchNothing) {
  // One unit whose offset points far past the array, and one whose leaf value points past the blob.
  const auto normalizer = MakeNormalizer(
      Json{{"type", "Precompiled"}, {"precompiled_charsmap", Charsmap(Bytes("\x04\x00\x00\x00\xff\xff\xff\xff"))}},
      "normalizer");
  std::string text = "anything \xe2\x82\xac";
  normalizer->Normalize(text);
  EXPECT_EQ(text, "anything \xe2\x82\xac");
}

TEST(Graphemes, ExtendedClustersFollowUax29) {
  const std::pair<std::string, size_t> cases[] = {
      {"\r\nx", 2},                                                      // GB3
      {"e\xcc\x81\xcc\x82x", 5},                                         // GB9: marks extend
      {"\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8x", 9},                      // GB6-GB8: Hangul L V T
      {"\xf0\x9f\x87\xab\xf0\x9f\x87\xb7\xf0\x9f\x87\xa9", 8},           // GB12: one flag, not three RIs
      {"\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9x", 11},             // GB11: emoji ZWJ sequence
      {"\xe0\xa4\x95\xe0\xa5\x8d\xe0\xa4\xb7x", 9},                      // GB9c: Devanagari conjunct
      {"\xe0\xa4\x95\xe0\xa5\x8d\xe2\x80\x8d\xe0\xa4\xb7x", 12},         // GB9c through ZWJ
      {"\xe0\xa4\x95\xe0\xa4\xb7", 3},                                   // no linker: two clusters
      {"\xd8\x80x", 3},                                                  // GB9b: Prepend (U+0600)
      {"a\nb", 1},                                                       // GB5
  };
  for (const auto& [text, length] : cases)
    EXPECT_EQ(graphemes::ClusterLength(text, 0), length) << Json(text).dump();
  EXPECT_STREQ(graphemes::UnicodeVersion(), "17.0.0");
}
