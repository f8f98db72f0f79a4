// The normalization forms' shortcut: text splits before every inert character (unicode::IsInert)
// into parts that normalize on their own, and inert text is left as it is. These pin that the
// normalizer built on it gives what normalizing the whole text as code points gives.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "normalizers.h"
#include "unicode.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

using unicode::NormalForm;

struct Form {
  NormalForm form;
  const char* type;
};
constexpr Form kForms[] = {
    {NormalForm::kNfc, "NFC"}, {NormalForm::kNfkc, "NFKC"}, {NormalForm::kNfd, "NFD"}, {NormalForm::kNfkd, "NFKD"}};

std::string Whole(std::string_view text, NormalForm form) {
  return utf8::FromCodePoints(unicode::Normalize(utf8::ToCodePoints(text), form));
}

TEST(UnicodeForms, AnInertCharacterIsAStarterTheFormKeeps) {
  for (const Form& f : kForms) {
    size_t inert = 0;
    for (char32_t c = 0; c < 0x20000; ++c) {
      if (c >= 0xD800 && c < 0xE000) continue;  // surrogates are not text
      if (!unicode::IsInert(c, f.form)) continue;
      ++inert;
      ASSERT_EQ(unicode::CombiningClass(c), 0) << f.type << " U+" << std::hex << static_cast<uint32_t>(c);
      ASSERT_EQ(unicode::Normalize(std::u32string(1, c), f.form), std::u32string(1, c))
          << f.type << " U+" << std::hex << static_cast<uint32_t>(c);
    }
    EXPECT_GT(inert, 100000u) << f.type;  // most characters are
  }
  // What the shortcut must not pass over: marks, the second of a pair, singletons, compatibility.
  EXPECT_FALSE(unicode::IsInert(0x0301, NormalForm::kNfc));  // combining acute
  EXPECT_FALSE(unicode::IsInert(0x1161, NormalForm::kNfc));  // Hangul V jamo composes with an L
  EXPECT_FALSE(unicode::IsInert(0x212B, NormalForm::kNfc));  // ANGSTROM SIGN -> U+00C5
  EXPECT_TRUE(unicode::IsInert(0x00E9, NormalForm::kNfc));   // é stays é
  EXPECT_FALSE(unicode::IsInert(0x00E9, NormalForm::kNfd));  // but decomposes in NFD
  EXPECT_FALSE(unicode::IsInert(0xFB01, NormalForm::kNfkc));  // ﬁ -> fi
  EXPECT_TRUE(unicode::IsInert(0xFB01, NormalForm::kNfc));
}

TEST(UnicodeForms, NormalizingByPartsEqualsNormalizingTheWhole) {
  // Inert characters, characters that compose with them, marks of several classes, Hangul jamo,
  // singletons, exclusions and compatibility characters, mixed at random.
  const std::vector<std::string> palette = {
      "a",        "e",        "A",        " ",        "\n",       "\u00e9",   "\u0301",       "\u0327",
      "\u0323",   "\u0300",   "\u1100",   "\u1161",   "\u11a8",   "\uac00",   "\uac01",       "\u4e00",
      "\uf900",   "\u212b",   "\u00c5",   "\ufb01",   "\uff21",   "\u0344",   "\u0958",       "\u093c",
      "\u0915",   "\u05b0",   "\u0e38",   "\u0f73",   "\u00a0",   "\u2126",   "\U0001F600",   "\U0001D15E",
      "\U0002F800", "\u0041\u030a", "\u1e9b", "\u0390"};
  std::mt19937 rng(22);
  for (const Form& f : kForms) {
    const auto normalizer = MakeNormalizer(Json{{"type", f.type}}, "normalizer");
    for (int round = 0; round < 20000; ++round) {
      std::string text;
      const size_t length = 1 + rng() % 12;
      for (size_t k = 0; k < length; ++k) text += palette[rng() % palette.size()];
      std::string parts = text;
      normalizer->Normalize(parts);
      ASSERT_EQ(parts, Whole(text, f.form)) << f.type << " on '" << text << "'";
    }
  }
}

}  // namespace
}  // namespace triton_studio::tok
