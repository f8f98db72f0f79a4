// Split with a regex pattern: Oniguruma's matches walked the way the onig crate's find_iter walks
// them (HF's find_matches), empty matches included, under every behavior and invert. Expected
// pieces are HF's (`preTokenizeString` of npm `tokenizers` on the same configuration).
#include <gtest/gtest.h>

#include <chrono>

#include "pre_tokenizers.h"
#include "triton_studio/tokenizer.h"

using Json = nlohmann::json;
using Strings = std::vector<std::string>;

namespace {

Strings Pieces(const Json& pattern, const char* behavior, bool invert, const std::string& text) {
  const Json config = {{"type", "Split"}, {"pattern", pattern}, {"behavior", behavior}, {"invert", invert}};
  triton_studio::tok::Pieces pieces;
  pieces.text = text;
  pieces.ranges.assign(1, {0, static_cast<uint32_t>(text.size())});
  triton_studio::tok::MakePreTokenizer(config, "pre_tokenizer")->PreTokenize(pieces);
  Strings got;
  for (const auto& [b, e] : pieces.ranges) got.emplace_back(pieces.text.substr(b, e - b));
  return got;
}

const Json kUpperOrSpaces = {{"Regex", "(?=\\p{Lu})|\\s+"}};  // an empty lookahead match and runs

}  // namespace

TEST(SplitRegex, EmptyLookaheadMatchesSplitButVanishUnderEveryBehavior) {
  EXPECT_EQ(Pieces(kUpperOrSpaces, "Isolated", false, "aB cD  Ef"), (Strings{"a", "B", " ", "c", "D", "  ", "Ef"}));
  EXPECT_EQ(Pieces(kUpperOrSpaces, "MergedWithNext", false, "aB cD  Ef"), (Strings{"a", "B", " c", "D", "  Ef"}));
  EXPECT_EQ(Pieces(kUpperOrSpaces, "MergedWithPrevious", false, "aB cD  Ef"),
            (Strings{"a", "B ", "c", "D  ", "Ef"}));
  EXPECT_EQ(Pieces(kUpperOrSpaces, "Contiguous", false, "aB cD  Ef"),
            (Strings{"a", "B", " ", "c", "D", "  ", "Ef"}));
  EXPECT_EQ(Pieces(kUpperOrSpaces, "Removed", true, "aB cD  Ef"), (Strings{" ", "  "}));
}

TEST(SplitRegex, AnEmptyMatchRightAfterAMatchIsSkipped) {
  // x* matches "xx" at 1, then the empty string at 3 (right after it) is skipped, "b" stays.
  EXPECT_EQ(Pieces({{"Regex", "x*"}}, "Isolated", false, "axxbx"), (Strings{"a", "xx", "b", "x"}));
  EXPECT_EQ(Pieces({{"Regex", "x*"}}, "MergedWithNext", false, "axxbx"), (Strings{"a", "xxb", "x"}));
  EXPECT_EQ(Pieces({{"Regex", "x*"}}, "Removed", false, "axxbx"), (Strings{"a", "b"}));
  EXPECT_EQ(Pieces({{"Regex", "x*"}}, "MergedWithPrevious", true, "axxbx"), (Strings{"a", "xxb", "x"}));
}

TEST(SplitRegex, EmptyPatternsSplitBetweenCharacters) {
  // HF runs a String pattern as its escaped regex: the empty string matches everywhere.
  EXPECT_EQ(Pieces({{"String", ""}}, "Isolated", false, "abc"), (Strings{"a", "b", "c"}));
  EXPECT_EQ(Pieces({{"Regex", ""}}, "MergedWithNext", false, "ab"), (Strings{"a", "b"}));
  EXPECT_EQ(Pieces({{"Regex", "\\b"}}, "Isolated", false, "ab cd"), (Strings{"ab", " ", "cd"}));
}

TEST(SplitRegex, InvalidPatternIsRefusedAtLoadNamingTheField) {
  try {
    Pieces({{"Regex", "(\\s+"}}, "Isolated", false, "x");
    FAIL() << "no error";
  } catch (const triton_studio::tok::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("pre_tokenizer.pattern.Regex: invalid regex (\\s+: end pattern with unmatched "
                                         "parenthesis"),
              std::string::npos)
        << e.what();
  }
}

TEST(SplitRegex, CatastrophicBacktrackingIsStoppedWithAClearError) {
  const Json nested = {{"Regex", "(a+)+b"}};
  EXPECT_EQ(Pieces(nested, "Isolated", false, "aaab c"), (Strings{"aaab", " c"}));
  // Without a "b" the nested repetition tries 2^n ways at every start: Oniguruma's retry limit
  // (the one HF runs with) stops it within a fraction of a second.
  const std::string adversarial = std::string(64, 'a') + "c";
  const auto start = std::chrono::steady_clock::now();
  try {
    Pieces(nested, "Isolated", false, adversarial);
    FAIL() << "no error";
  } catch (const triton_studio::tok::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("regex (a+)+b failed on a 65-byte piece: the regex backtracks too much"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(SplitRegex, TheSearchWideLimitStopsPolynomialWorkAcrossStartPositions) {
  // \s*\s*\S on spaces: about n^2/2 retries at each start position (below the per-match limit),
  // n^3/6 over the search; the search-wide limit ends it where HF would run for minutes.
  const std::string spaces(2000, ' ');
  const auto start = std::chrono::steady_clock::now();
  try {
    Pieces({{"Regex", "\\s*\\s*\\S"}}, "Isolated", false, spaces);
    FAIL() << "no error";
  } catch (const triton_studio::tok::TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("retry-limit-in-search over"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}
