// The normalization forms' shortcut: text splits before every inert character (unicode::FormChecks)
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
      if (!unicode::FormChecksOf(f.form).Inert(c)) continue;
      ++inert;
      ASSERT_EQ(unicode::CombiningClass(c), 0) << f.type << " U+" << std::hex << static_cast<uint32_t>(c);
      ASSERT_EQ(unicode::Normalize(std::u32string(1, c), f.form), std::u32string(1, c))
          << f.type << " U+" << std::hex << static_cast<uint32_t>(c);
    }
    EXPECT_GT(inert, 100000u) << f.type;  // most characters are
  }
  // What the shortcut must not pass over: marks, the second of a pair, singletons, compatibility.
  EXPECT_FALSE(unicode::FormChecksOf(NormalForm::kNfc).Inert(0x0301));  // combining acute
  EXPECT_FALSE(unicode::FormChecksOf(NormalForm::kNfc).Inert(0x1161));  // Hangul V jamo composes with an L
  EXPECT_FALSE(unicode::FormChecksOf(NormalForm::kNfc).Inert(0x212B));  // ANGSTROM SIGN -> U+00C5
  EXPECT_TRUE(unicode::FormChecksOf(NormalForm::kNfc).Inert(0x00E9));   // é stays é
  EXPECT_FALSE(unicode::FormChecksOf(NormalForm::kNfd).Inert(0x00E9));  // but decomposes in NFD
  EXPECT_FALSE(unicode::FormChecksOf(NormalForm::kNfkc).Inert(0xFB01));  // ﬁ -> fi
  EXPECT_TRUE(unicode::FormChecksOf(NormalForm::kNfc).Inert(0xFB01));
}

TEST(UnicodeForms, NormalizingByPartsEqualsNormalizingTheWhole) {
  // Inert characters, characters that compose with them, marks of several classes, Hangul jamo,
  // singletons, exclusions and compatibility characters, mixed at random.
  const std::vector<std::string> palette = {
      "a",        "e",        "A",        " ",        "\n",       "\u00e9",   "\u0301",       "\u0327",
      "\u0323",   "\u0300",   "\u1100",   "\u1161",   "\u11a8",   "\uac00",   "\uac01",       "\u4e00",
      "\uf900",   "\u212b",   "\u00c5",   "\ufb01",   "\uff21",   "\u0344",   "\u0958",       "\u093c",
      "\u0915",   "\u05b0",   "\u0e38",   "\u0f73",   "\u00a0",   "\u2126",   "\U0001F600",   "\U0001D15E",
      "\U0002F800", "\u0041\u030a", "\u1e9b", "\u0390", "\u094d", "\u0316", "\u0e48", "\u09be", "\u09c7", "\u0995"};
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
      if (normalizer->Keeps(text)) {
        ASSERT_EQ(parts, text) << f.type << " keeps '" << text << "'";
      }
    }
  }
}

TEST(UnicodeForms, TheQuickCheckAnswersYesForInertCharactersAndMarksTheFormKeeps) {
  for (const Form& f : kForms) {
    size_t marks = 0;
    for (char32_t c = 0; c < 0x20000; ++c) {
      if (c >= 0xD800 && c < 0xE000) continue;
      const int k = unicode::FormChecksOf(f.form).YesClass(c);
      ASSERT_EQ(k == 0, unicode::FormChecksOf(f.form).Inert(c)) << f.type << " U+" << std::hex << static_cast<uint32_t>(c);
      if (k <= 0) continue;
      ++marks;
      ASSERT_EQ(k, unicode::CombiningClass(c));
      ASSERT_EQ(unicode::Normalize(std::u32string(1, c), f.form), std::u32string(1, c))
          << f.type << " U+" << std::hex << static_cast<uint32_t>(c);
    }
    EXPECT_GT(marks, 500u) << f.type;
  }
  EXPECT_EQ(unicode::FormChecksOf(NormalForm::kNfc).YesClass(0x094D), 9);   // Devanagari virama
  EXPECT_EQ(unicode::FormChecksOf(NormalForm::kNfc).YesClass(0x0301), -1);  // "Maybe": composes with e
  EXPECT_EQ(unicode::FormChecksOf(NormalForm::kNfd).YesClass(0x0301), 230);
  EXPECT_EQ(unicode::FormChecksOf(NormalForm::kNfc).YesClass(0x0958), -1);  // "No": an exclusion
}

TEST(UnicodeForms, TextIsKeptWhenEveryCharacterPassesTheQuickCheckWithItsMarksInOrder) {
  const auto nfc = MakeNormalizer(Json{{"type", "NFC"}}, "normalizer");
  EXPECT_TRUE(nfc->Keeps("plain ASCII"));
  EXPECT_TRUE(nfc->Keeps("\u0915\u094d\u0937"));             // क्ष: a virama between consonants
  EXPECT_TRUE(nfc->Keeps("\u0e01\u0e48\u0e32 text \u0e19"));  // Thai tone mark
  EXPECT_TRUE(nfc->Keeps("x\u0316\u0316\u0315"));             // classes 220, 220, 232
  EXPECT_FALSE(nfc->Keeps("x\u0316\u0315\u0316"));            // 220, 232, then 220: out of order
  EXPECT_FALSE(nfc->Keeps("e\u0301"));                          // composes: é
  EXPECT_FALSE(nfc->Keeps("\u0958"));                           // decomposes and stays so
  EXPECT_TRUE(nfc->Keeps("\u0915\u0315 \u0915\u094d"));          // runs apart: 232, then 9
  // "Maybe": kept right after a starter it does not compose with.
  EXPECT_TRUE(nfc->Keeps("\u0995\u09be"));                      // কা: AA after KA
  EXPECT_FALSE(nfc->Keeps("\u09c7\u09be"));                     // E + AA compose: ো
  EXPECT_TRUE(nfc->Keeps("\u0301 first"));                      // nothing before it
  EXPECT_TRUE(nfc->Keeps("x\u0301"));                           // x has no acute form
  EXPECT_FALSE(nfc->Keeps("\u1100\u1161"));                     // Hangul L + V compose
  EXPECT_FALSE(nfc->Keeps("\u00e0\u0323"));                     // à decomposes: a, U+0323 compose first
}

}  // namespace
}  // namespace triton_studio::tok
