// The hand-written Split scanners against Oniguruma itself (the engine a scanner stands in for):
// the class table code point by code point, and each scanner on the inputs its branches hinge on.
// fuzz/fuzz_split_scanners.cc runs the same comparison on generated text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "onig_regex.h"
#include "scanners/ascii_block.h"
#include "scanners/char_classes.h"
#include "scanners/scan_parts.h"
#include "split_reference.h"
#include "split_scanner.h"
#include "unicode.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

std::vector<Range> Engine(const std::string& pattern, std::string_view text) {
  std::vector<Range> m;
  OnigRegex(pattern, "test").FindMatches(text, m);
  return m;
}

std::vector<Range> Scanner(std::string_view pattern, std::string_view text) {
  std::vector<Range> m;
  FindSplitScanner(pattern).scan(text, m);
  return m;
}

std::vector<Range> EnginesInTurn(const std::vector<std::string_view>& patterns, std::string_view text) {
  std::vector<std::unique_ptr<OnigRegex>> engines;
  for (const std::string_view p : patterns) engines.push_back(std::make_unique<OnigRegex>(std::string(p), "test"));
  return reference::EnginesInTurn(engines, text);
}

TEST(SplitScanners, ClassTableIsTheLinkedOnigurumasForEveryCodePoint) {
  ASSERT_STREQ(scanners::ClassTableVersion(), OnigRegex::EngineVersion())
      << "regenerate src/scanners/onig_classes.inc with ts-gen-onig-classes (tools/gen_onig_classes.cc)";
  std::vector<std::unique_ptr<OnigRegex>> engines;
  for (const auto& p : scanners::kClassProperties) engines.push_back(std::make_unique<OnigRegex>(p.regex, p.regex));
  std::vector<Range> m;
  std::string s;
  size_t differs_from_unicode_tables = 0;
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    s.clear();
    utf8::Append(c, s);
    const uint16_t k = scanners::ClassOf(c);
    for (size_t p = 0; p < engines.size(); ++p) {
      m.clear();
      engines[p]->FindMatches(s, m);
      ASSERT_EQ((k & scanners::kClassProperties[p].bit) != 0, !m.empty())
          << scanners::kClassProperties[p].regex << " U+" << std::hex << static_cast<uint32_t>(c);
    }
    differs_from_unicode_tables += ((k & scanners::kLetter) != 0) != unicode::IsLetter(c) ||
                                   ((k & scanners::kNumber) != 0) != unicode::IsNumber(c);
  }
  // The library's own tables (unicode_tables.inc) are an older Unicode than Oniguruma's: the
  // scanners must not use them. Recorded so the difference is visible.
  RecordProperty("letters_or_numbers_differing_from_unicode_tables", static_cast<int>(differs_from_unicode_tables));
  std::printf("[scanners] Oniguruma %s vs unicode_tables.inc (Unicode %s): %zu code points differ in \\p{L}/\\p{N}\n",
              OnigRegex::EngineVersion(), unicode::Version(), differs_from_unicode_tables);
}

// Inputs on which the cl100k-style branches turn: contractions (every case, U+017F long s, near
// misses), a leading non-letter before letters (space, tab, NBSP, punctuation, combining mark,
// CR/LF which may not lead), digit runs of 1-5, punctuation runs with trailing CR/LF, white space
// runs with and without CR/LF before letters, digits and the end, CJK, emoji, ZWJ sequences,
// combining marks, letters and numbers outside the BMP and from recent Unicode versions.
const char* const kTricky[] = {
    "I'm you're we've they'll she'd it's don't",
    "I'M YOU'RE WE'VE THEY'LL SHE'D IT'S DON'T 'S 'T 'Re 'rE 'vE 'Ll 'lL",
    "'\xC5\xBF 'x '' 'r 'l 'v' ' s",  // 'ſ (U+017F folds to s), then near misses
    "'strange 'tis 'made 'db 'reply 'llama",
    "hello world  two   three\tfour\xC2\xA0nbsp",
    "(paren) [bracket] {brace} \"quote\" -dash _under .dot",
    "\ttabbed\n\nnewline\r\nwindows\rcarriage",
    "1 12 123 1234 12345 123456789 \xD9\xA1\xD9\xA2\xD9\xA3\xD9\xA4 \xE2\x85\xAB\xC2\xB2\xC2\xBD",
    "x1 a12b 3rd 4th 5000km",
    "!!! ?!\n ...\r\n ---\n\n\n",
    "   \n   \n  x  \n",
    "  leading and trailing  ",
    "end with spaces   ",
    "\n",
    " ",
    "a",
    "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C \xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF",
    "\xF0\x9F\x98\x80\xF0\x9F\x98\x81 emoji \xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 family",
    "e\xCC\x81t\xC3\xA9 cafe\xCC\x81 \xCC\x81x \xCC\x81\xCC\x81",
    "\xF0\x9D\x90\x80\xF0\x9D\x90\x81 \xF0\x9D\x9F\x8E\xF0\x9D\x9F\x8F",  // math bold letters and digits
    "\xF0\xAE\xAF\xA0\xF0\xB1\x8D\x90 \xF0\xB2\x8E\xAF",                  // CJK extensions (new in Unicode 15+)
    "\xC2\x85nel\xE2\x80\xA8ls\xE2\x80\xA9ps\xE3\x80\x80ideo\xE1\x9A\x80ogham",
    "\x01\x02control\x7F \xEF\xBF\xBD\xEF\xBF\xBD",
    "line\r\n\r\n  \r\n\tx",
    " \r\n",
    "  1  ?  a",
    // o200k-style words: case changes inside a word, titlecase, modifier and other letters, marks
    "HelloWorld HTMLParser iPhone McDonald's DON'T I'm ABC'S \xC7\x85ungla \xC7\x88ub \xCA\xB0x \xE3\x80\x85" "a",
    "A\xCC\x81" "B\xCC\x81" "c \xCC\x81\xCC\x81" "A aA\xCC\x81 \xCA\xB0\xCA\xB0" "A \xD7\x90" "A\xD7\x90 \xC3\x89" "COLE \xC3\xA9" "cole",
    "path/to/file\n/root //x\r\n/ !/\n/y ?\n\n/ ./",
    // ASCII words that continue into non-ASCII letters or marks (the o200k scanner's ASCII path
    // must hand these to the general one), ASCII leads before non-ASCII letters
    "Caf\xC3\xA9 ABC\xC3\x89" "a abc\xCC\x81 .Ab\xC3\xA9 x\xF0\x9F\x98\x80 -\xC3\xA9t\xC3\xA9 1\xC3\xA9 \n\xC3\xA9 AB\xCA\xB0" "c",
    // DeepSeek: ASCII punctuation before ASCII letters, CJK and kana at the range edges, digits
    "'hello .com #tag @user $x -y \"quoted\" (paren) [x] {y} \\z ~w `v ^u |t _s",
    "\xE4\xB8\x80\xE9\xBE\xA5\xE9\xBE\xA6\xE3\x81\x80\xE3\x82\x9F\xE3\x82\xA0\xE3\x83\xBF\xE3\x84\x80\xE3\x80\xBF\xE4\xB7\xBF",
    "x1y 12abc 1\xCC\x81 \x01" "a \x01\x02 \xE2\x80\x8Dz \xE2\x80\x8D\xE2\x80\x8D \xC2\xA9\xC2\xA9\n\n \xC2\xBFQu\xC3\xA9? \xE2\x82\xAC" "5",
};

TEST(SplitScanners, EveryScannerMatchesOnigurumaOnTheTrickyInputs) {
  const auto patterns = SplitScannerPatterns();
  ASSERT_FALSE(patterns.empty());
  for (const std::string_view pattern : patterns) {
    for (const char* text : kTricky) {
      EXPECT_EQ(Scanner(pattern, text), Engine(std::string(pattern), text)) << pattern << "\non: " << text;
    }
  }
}

// Random text around the 64-byte blocks (half of it all ASCII, so that whole blocks are): every
// scanner against Oniguruma. The block paths decide a piece from its neighbours' bits; this is
// where an error in one of those rules, or at a block's edges, shows.
TEST(SplitScanners, EveryScannerMatchesOnigurumaOnRandomTextAroundItsBlocks) {
  std::vector<std::pair<std::string_view, std::unique_ptr<OnigRegex>>> engines;
  for (const std::string_view pattern : SplitScannerPatterns())
    engines.emplace_back(pattern, std::make_unique<OnigRegex>(std::string(pattern), "test"));
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  std::vector<Range> want, got;
  for (int round = 0; round < 10000; ++round) {
    const std::string text = reference::RandomScannerText(state, 300, round % 2 == 0);
    for (const auto& [pattern, engine] : engines) {
      want.clear();
      engine->FindMatches(text, want);
      got.clear();
      FindSplitScanner(pattern).scan(text, got);
      ASSERT_EQ(got, want) << pattern << "\non: " << nlohmann::json(text).dump();
    }
  }
}

TEST(SplitScanners, Cl100kPiecesReadAsTheSpecificationSays) {
  const std::string_view llama3 = SplitScannerPatterns().at(0);
  const auto pieces = [&](std::string_view text) {
    std::vector<std::string> out;
    for (const auto& [b, e] : Scanner(llama3, text)) out.emplace_back(text.substr(b, e - b));
    return out;
  };
  EXPECT_EQ(pieces("I'M 12345 x"), (std::vector<std::string>{"I", "'M", " ", "123", "45", " x"}));
  EXPECT_EQ(pieces("  hi\n\n  there"), (std::vector<std::string>{" ", " hi", "\n\n", " ", " there"}));
  EXPECT_EQ(pieces("'\xC5\xBF"), (std::vector<std::string>{"'\xC5\xBF"}));  // case folding: 'ſ is 's
}

TEST(SplitScanners, O200kPiecesReadAsTheSpecificationSays) {
  const std::string_view gpt_oss = SplitScannerPatterns().at(2);
  const auto pieces = [&](std::string_view text) {
    std::vector<std::string> out;
    for (const auto& [b, e] : Scanner(gpt_oss, text)) out.emplace_back(text.substr(b, e - b));
    return out;
  };
  // A case change starts a word; an all-capital word takes its contraction; "/" follows a newline.
  EXPECT_EQ(pieces("HelloWorld iPhone DON'T 12345 a.\n/b"),
            (std::vector<std::string>{"Hello", "World", " i", "Phone", " DON'T", " ", "123", "45", " a", ".\n/", "b"}));
}

// The ASCII fast paths decide on byte kinds and eight-byte letter tests instead of the class
// table. In ASCII, \p{L} is A-Z and a-z, \p{N} is 0-9 and \s is TAB, LF, VT, FF, CR and space
// (the code that names these ranges relies on it); the kinds and the letter runs must say so, as
// the class table does, for every byte at every place in a word (both the eight-byte steps and
// the tail).
TEST(SplitScanners, TheAsciiFastPathsAgreeWithTheClassTable) {
  using namespace scanners;
  for (int b = 0; b < 256; ++b) {
    const bool letter = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
    const bool digit = b >= '0' && b <= '9';
    const bool crlf = b == '\r' || b == '\n';
    const bool space = b == '\t' || b == '\v' || b == '\f' || b == ' ';
    const uint8_t want = b >= 0x80 ? kHighByte
                         : letter  ? kLetterByte
                         : digit   ? kDigitByte
                         : crlf    ? kCrLfByte
                         : space   ? kSpaceByte
                                   : kOtherByte;
    ASSERT_EQ(kByteKind[static_cast<char>(b)], want) << "byte " << b;
    if (b < 0x80) {
      const uint16_t k = ClassOf(static_cast<char32_t>(b));
      ASSERT_EQ((k & kLetter) != 0, letter) << "byte " << b;
      ASSERT_EQ((k & kNumber) != 0, digit) << "byte " << b;
      ASSERT_EQ((k & kSpace) != 0, crlf || space) << "byte " << b;
    }
    for (size_t at = 0; at < 12; ++at) {
      std::string s(12, 'q');
      s[at] = static_cast<char>(b);
      const size_t stop = (want == kLetterByte) ? s.size() : at;
      ASSERT_EQ(AsciiLettersEnd(s, 0), stop) << "byte " << b << " at " << at;
      ASSERT_EQ(AsciiLowerEnd(s, 0), b >= 'a' && b <= 'z' ? s.size() : at) << "byte " << b << " at " << at;
    }
  }
}

#if defined(__SSE2__)
// The block classification by 16 bytes (CPUs without AVX2) and by 32 give the same masks: on an
// AVX2 machine only the second runs in the scanners, so the first is held to it here, every byte
// value in every position.
TEST(SplitScanners, TheSse2AndAvx2BlockClassificationsAgree) {
  if (!scanners::HasAvx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  const auto masks = [](const scanners::AsciiBlock& b) {
    return std::vector<uint64_t>{b.letter, b.digit, b.blank, b.white, b.crlf, b.apostrophe, b.high, b.control, b.upper, b.slash};
  };
  uint64_t state = 0xBF58476D1CE4E5B9ULL;
  for (int round = 0; round < 20000; ++round) {
    alignas(32) char bytes[64];
    for (char& c : bytes) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      c = static_cast<char>(round % 2 ? state % 256 : 32 + state % 96);  // any byte, or printable ASCII
    }
    constexpr unsigned kAll = scanners::kControlClass | scanners::kUpperClass | scanners::kSlashClass;
    scanners::AsciiBlock sse2(" ", 0), avx2(" ", 0);  // then cleared: the classifiers OR into the masks
    for (scanners::AsciiBlock* b : {&sse2, &avx2})
      b->letter = b->digit = b->blank = b->white = b->crlf = b->apostrophe = b->high = b->control = b->upper = b->slash = 0;
    scanners::ClassifySse2<kAll>(bytes, sse2);
    scanners::ClassifyAvx2<kAll>(bytes, avx2);
    ASSERT_EQ(masks(sse2), masks(avx2)) << "round " << round;
  }
}
#endif

// A scanner appends after what `matches` holds, however many pieces the text has (one-letter
// words: a piece every two bytes).
TEST(SplitScanners, ScannersAppendAfterWhatMatchesHolds) {
  std::string many;
  for (int i = 0; i < 3000; ++i) many += i % 7 ? " a" : "\n1";
  for (const std::string_view pattern : SplitScannerPatterns()) {
    for (const std::string& text : {many, std::string("x y"), std::string()}) {
      std::vector<Range> got = {{7, 9}};
      FindSplitScanner(pattern).scan(text, got);
      std::vector<Range> want = {{7, 9}};
      const auto engine = Engine(std::string(pattern), text);
      want.insert(want.end(), engine.begin(), engine.end());
      EXPECT_EQ(got, want) << pattern;
    }
  }
}

// The form a batch of texts calls (scan_into, through PreTokenizer::AsScan): the ranges `scan`
// appends, written into an array with room for text.size() + kScanIntoSlack, and nothing past
// them (one-letter words are a piece every two bytes).
TEST(SplitScanners, ScannersIntoAnArrayWriteWhatTheyAppend) {
  std::vector<SplitScanner> scanners;
  for (const std::string_view pattern : SplitScannerPatterns())
    if (FindSplitScanner(pattern).scan_into != nullptr) scanners.push_back(FindSplitScanner(pattern));
  for (const auto& patterns : SequenceScannerPatterns()) scanners.push_back(FindSequenceScanner(patterns));
  ASSERT_EQ(scanners.size(), 4u);  // cl100k, Qwen2, o200k, DeepSeek-V3's sequence
  std::vector<std::string> texts(std::begin(kTricky), std::end(kTricky));
  texts.emplace_back();
  std::string many;
  for (int i = 0; i < 3000; ++i) many += i % 7 ? " a" : "\n1";
  texts.push_back(many);
  uint64_t state = 0x94D049BB133111EBULL;
  for (int round = 0; round < 2000; ++round) texts.push_back(reference::RandomScannerText(state, 300, round % 2 == 0));
  const Range unwritten{0xDEADBEEF, 0xDEADBEEF};
  for (const SplitScanner& scanner : scanners) {
    ASSERT_NE(scanner.scan_into, nullptr);
    for (const std::string& text : texts) {
      std::vector<Range> want;
      scanner.scan(text, want);
      std::vector<Range> out(text.size() + PreTokenizer::kScanIntoSlack, unwritten);
      const size_t count = scanner.scan_into(text, out.data());
      ASSERT_EQ(std::vector<Range>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(count)), want)
          << "on: " << nlohmann::json(text).dump();
      for (size_t k = count; k < out.size(); ++k) ASSERT_EQ(out[k], unwritten) << k;
    }
  }
}

// The Split nodes exactly as the tokenizer.json files of Llama-3.1, Qwen3, gpt-oss and DeepSeek-V3
// hold them (JSON escapes and all): their patterns must select a scanner, or those files silently
// fall back to Oniguruma.
TEST(SplitScanners, TheShippedPatternsSelectAScanner) {
  const char* const kSplitNodes[] = {
      // gpt-oss, then DeepSeek-V3's three (its file has raw CR and LF in two classes: \r\n in JSON)
      R"({"type": "Split", "pattern": {"Regex": "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false})",
      R"({"type": "Split", "pattern": {"Regex": "\\p{N}{1,3}"}, "behavior": "Isolated", "invert": false})",
      R"({"type": "Split", "pattern": {"Regex": "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"}, "behavior": "Isolated", "invert": false})",
      R"({"type": "Split", "pattern": {"Regex": "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false})",
      R"({"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false})",
      R"({"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false})",
  };
  for (const char* node : kSplitNodes) {
    const std::string pattern = nlohmann::json::parse(node)["pattern"]["Regex"].get<std::string>();
    EXPECT_NE(FindSplitScanner(pattern).scan, nullptr) << pattern;
  }
}

// A scanner that says its matches tile the text (so Split takes them as pieces unchecked) does.
TEST(SplitScanners, ScannersThatSayTheyTileDo) {
  size_t tiling = 0;
  for (const std::string_view pattern : SplitScannerPatterns()) {
    if (!FindSplitScanner(pattern).tiles) continue;
    ++tiling;
    for (const char* text : kTricky) EXPECT_TRUE(MatchesTile(Scanner(pattern, text), std::strlen(text))) << pattern << "\non: " << text;
  }
  EXPECT_EQ(tiling, 3u);  // cl100k, Qwen2, o200k: every character starts one of their alternatives
}

// The inputs where DeepSeek-V3's three Splits meet: numbers against letters, white space and CJK
// (each Split's pieces are the next one's haystacks, so a match cannot run across them), kana
// punctuation, symbols and marks inside a CJK run, non-ASCII numbers, a run of digits longer
// than three.
const char* const kSequenceTricky[] = {
    "ab12345cd 12 \t7\n8x  9  ",
    "\xE4\xB8\xAD\xE6\x96\x87" "abc \xE4\xB8\xAD" "1\xE6\x96\x87 x\xE4\xB8\xAD \xE4\xB8\xAD",
    "\xE3\x82\xAB\xE3\x83\xBB\xE3\x82\xAB \xE3\x82\x9B\xE3\x82\x99\xE3\x83\xBC\xE3\x82\xA0\xE3\x81\x80x",
    "\xD9\xA1\xD9\xA2\xD9\xA3\xD9\xA4" "a \xE2\x85\xAB\xE2\x85\xAB\xE2\x85\xAB\xE2\x85\xAB \xC2\xB2\xC2\xBD" "b",
    "x.1 .5e3 1.5 -2 $3 #4a a#4 \x01" "5 \r\n5\r\n",
};

TEST(SplitScanners, SequenceScannersMatchTheirSplitsInTurn) {
  const auto sequences = SequenceScannerPatterns();
  ASSERT_FALSE(sequences.empty());
  for (const auto& patterns : sequences) {
    const SplitScanner fused = FindSequenceScanner(patterns);
    ASSERT_NE(fused.scan, nullptr);
    ASSERT_TRUE(fused.tiles);
    std::vector<const char*> texts(std::begin(kTricky), std::end(kTricky));
    texts.insert(texts.end(), std::begin(kSequenceTricky), std::end(kSequenceTricky));
    for (const char* text : texts) {
      std::vector<Range> got;
      fused.scan(text, got);
      EXPECT_EQ(got, EnginesInTurn(patterns, text)) << "on: " << text;
    }
  }
}

// As EveryScannerMatchesOnigurumaOnRandomTextAroundItsBlocks, for the fused Sequence scanners
// against their Splits in turn: numbers, CJK and the words pattern's own pieces meeting at and
// across the edges of 64-byte blocks.
TEST(SplitScanners, SequenceScannersMatchTheirSplitsInTurnOnRandomTextAroundTheirBlocks) {
  for (const auto& patterns : SequenceScannerPatterns()) {
    std::vector<std::unique_ptr<OnigRegex>> engines;
    for (const std::string_view p : patterns) engines.push_back(std::make_unique<OnigRegex>(std::string(p), "test"));
    const SplitScanner fused = FindSequenceScanner(patterns);
    uint64_t state = 0xD1B54A32D192ED03ULL;
    std::vector<Range> got;
    for (int round = 0; round < 10000; ++round) {
      const std::string text = reference::RandomScannerText(state, 300, round % 2 == 0);
      got.clear();
      fused.scan(text, got);
      ASSERT_EQ(got, reference::EnginesInTurn(engines, text)) << "on: " << nlohmann::json(text).dump();
    }
  }
}

TEST(SplitScanners, DeepSeekPiecesReadAsTheSpecificationSays) {
  const auto deepseek = SequenceScannerPatterns().at(0);
  const auto pieces = [&](std::string_view text) {
    std::vector<Range> m;
    FindSequenceScanner(deepseek).scan(text, m);
    std::vector<std::string> out;
    for (const auto& [b, e] : m) out.emplace_back(text.substr(b, e - b));
    return out;
  };
  // Numbers in threes, apart from the letters they touch; white space before a number is the end
  // of its piece's haystack, so \s+(?!\S) takes all of it; a CJK run is a piece of its own, and
  // the words pattern still splits kana punctuation (U+30FB) out of it.
  EXPECT_EQ(pieces("ab12345cd  7"), (std::vector<std::string>{"ab", "123", "45", "cd", "  ", "7"}));
  EXPECT_EQ(pieces("x\xE4\xB8\xAD\xE3\x82\xAB\xE3\x83\xBB\xE3\x82\xAB"),
            (std::vector<std::string>{"x", "\xE4\xB8\xAD\xE3\x82\xAB", "\xE3\x83\xBB", "\xE3\x82\xAB"}));
}

// The DeepSeek-V3 file's three Split patterns, as its Sequence lists them, select the fused scanner.
TEST(SplitScanners, DeepSeekSequenceSelectsTheFusedScanner) {
  const auto patterns = SplitScannerPatterns();
  EXPECT_NE(FindSequenceScanner({patterns.at(3), patterns.at(4), patterns.at(5)}).scan, nullptr);
  EXPECT_EQ(FindSequenceScanner({patterns.at(3), patterns.at(5)}).scan, nullptr);  // not the same Sequence
  EXPECT_EQ(FindSequenceScanner({patterns.at(4), patterns.at(3), patterns.at(5)}).scan, nullptr);
}

}  // namespace
}  // namespace triton_studio::tok
