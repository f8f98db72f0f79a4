// The UnicodeScripts pre-tokenizer: pieces where the script changes, HF's quirks included.
// tokenizers-unicode-scripts.test.ts checks every code point against HF tokenizers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pre_tokenizers.h"

using Json = nlohmann::json;
using triton_studio::tok::MakePreTokenizer;

namespace {

std::vector<std::string> Split(const std::string& text) {
  const auto pre = MakePreTokenizer(Json{{"type", "UnicodeScripts"}}, "pre_tokenizer");
  triton_studio::tok::Pieces pieces;
  pieces.text = text;
  pieces.ranges = {{0, static_cast<uint32_t>(text.size())}};
  pre->PreTokenize(pieces);
  std::vector<std::string> out;
  for (const auto& [b, e] : pieces.ranges) out.push_back(text.substr(b, e - b));
  return out;
}

}  // namespace

TEST(UnicodeScripts, SplitsWhereTheScriptChanges) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Split("abc \xce\xb1\xce\xb2 def"), (V{"abc ", "\xce\xb1\xce\xb2 ", "def"}));
  EXPECT_EQ(Split("x1y"), (V{"x", "1", "y"}));  // digits are Common
  // Kana and the prolonged sound mark count as Han, as SentencePiece has it.
  EXPECT_EQ(Split("a\xe6\xbc\xa2\xe3\x82\xab\xe3\x81\x8b\xe3\x83\xbc"),
            (V{"a", "\xe6\xbc\xa2\xe3\x82\xab\xe3\x81\x8b\xe3\x83\xbc"}));
  // Code points new after Unicode 9.0 (Kawi U+11F00) have no script and never split.
  EXPECT_EQ(Split("a\xf0\x91\xbc\x80"
                  "b"),
            (V{"a\xf0\x91\xbc\x80"
               "b"}));
}

TEST(UnicodeScripts, DropsLeadingSpacesAndAllSpacePiecesAsHuggingFace) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Split("  hello world"), (V{"hello world"}));
  EXPECT_EQ(Split("   "), V{});
  EXPECT_EQ(Split(""), V{});
}

TEST(UnicodeScripts, TakesNoOptions) {
  EXPECT_THROW(MakePreTokenizer(Json{{"type", "UnicodeScripts"}, {"x", 1}}, "pre_tokenizer"),
               triton_studio::tok::TokenizerError);
}
