// Differential fuzzer: every hand-written Split scanner (split_scanner.cc's table) and ByteLevel's
// GPT-2 split (byte_level::SplitGpt2) against Oniguruma on its exact pattern, every sequence
// scanner against Oniguruma running its patterns as Isolated Splits in turn, on text built from
// the input; a scanner that says its matches tile the text must tile it. Any difference aborts
// with both match lists. Bytes pick characters from the classes
// the scanners branch on (ASCII, white space with and without CR/LF, digits and letters from every
// plane, cased letters of each kind, marks, punctuation and symbols, the edges of DeepSeek's CJK
// ranges, the case folds of the contraction letters), or any code point.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "byte_level.h"
#include "onig_regex.h"
#include "split_scanner.h"
#include "../test/split_reference.h"
#include "utf8.h"

using namespace triton_studio::tok;

namespace {

const char32_t kPalette[] = {
    '\'', 's', 'S', 't', 'T', 'r', 'R', 'e', 'E', 'v', 'V', 'm', 'M', 'l', 'L', 'd', 'D', 'a', 'Z', '0', '9',
    ' ', ' ', ' ', '\t', '\n', '\r', '\v', '\f', '!', '.', '-', '/', '"', '_', 0x00, 0x01, 0x7F,
    0x85, 0xA0, 0x1680, 0x2000, 0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0x180E, 0xFEFF,  // spaces and near misses
    0x17F, 0x212A, 0x212B, 0xFB05, 0xFB06, 0x130, 0x131, 0xDF, 0x1E9E,                          // case-folding specials
    0x301, 0x308, 0x20DD, 0x0E31, 0x094D, 0x1F3FB, 0x200D, 0xFE0F,                                // marks, ZWJ, VS16
    0x4E00, 0x3042, 0x30A2, 0xAC00, 0x0661, 0x0966, 0x216B, 0xB2, 0xBD, 0x1D7CE, 0x1D400,         // letters, numbers
    0x1F600, 0x1F468, 0x2EBF0, 0x31350, 0x323AF, 0x11F00, 0x1E4D0, 0x10D40, 0x1E5D0, 0x16D40,      // emoji, recent scripts
    0xFFFD, 0x10FFFF, 0xE000,
    0x1C5, 0x1C8, 0x2B0, 0x3005, 0x5D0, 0xC9, 0xE9, 0x391, 0x3B1, 0x10A0, 0x1E00, 0x1E01,        // Lt, Lm, Lo, Lu, Ll
    0xA9, 0xAC, 0x20AC, 0xBF, 0xA1, 0x3001, 0xFF01, 0x2014, 0x201C, 0x2603,                      // P and S beyond ASCII
    0x303F, 0x3040, 0x309F, 0x30A0, 0x30FF, 0x3100, 0x4DFF, 0x9FA5, 0x9FA6, 0x9FFF,              // DeepSeek's CJK range edges
    0x200C, 0x00AD, 0x061C, 0xE0001,                                                             // Cf: in no class
};

std::string TextFrom(const uint8_t* data, size_t size) {
  std::string text;
  for (size_t i = 0; i < size; ++i) {
    const uint8_t b = data[i];
    char32_t c;
    if (b < 0x80) {
      c = b;  // ASCII as is
    } else if (b < 0xF0) {
      c = kPalette[(b - 0x80) % (sizeof kPalette / sizeof kPalette[0])];
    } else if (i + 3 < size) {
      c = (static_cast<char32_t>(data[i + 1]) << 16 | static_cast<char32_t>(data[i + 2]) << 8 | data[i + 3]) % 0x110000;
      i += 3;
      if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
    } else {
      c = ' ';
    }
    utf8::Append(c, text);
  }
  return text;
}

[[noreturn]] void Differs(std::string_view what, const std::string& text, const std::vector<Range>& want,
                         const std::vector<Range>& got) {
  std::fprintf(stderr, "%.*s\n", static_cast<int>(what.size()), what.data());
  for (const auto& [b, e] : want) std::fprintf(stderr, " onig [%u,%u) '%s'\n", b, e, text.substr(b, e - b).c_str());
  for (const auto& [b, e] : got) std::fprintf(stderr, " scan [%u,%u) '%s'\n", b, e, text.substr(b, e - b).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  struct Scanner {
    SplitScanner scanner;
    std::unique_ptr<OnigRegex> engine;
  };
  struct Sequence {
    SplitScanner scanner;
    std::vector<std::unique_ptr<OnigRegex>> engines;
  };
  static const auto* scanners = [] {
    auto* m = new std::map<std::string_view, Scanner>();
    for (const std::string_view p : SplitScannerPatterns())
      (*m)[p] = {FindSplitScanner(p), std::make_unique<OnigRegex>(std::string(p), "fuzz")};
    (*m)[byte_level::kGpt2Pattern] = {
        {[](std::string_view text, std::vector<Range>& out) { byte_level::SplitGpt2(text, 0, out); }},
        std::make_unique<OnigRegex>(std::string(byte_level::kGpt2Pattern), "fuzz")};
    return m;
  }();
  static const auto* sequences = [] {
    auto* v = new std::vector<Sequence>();
    for (const auto& patterns : SequenceScannerPatterns()) {
      Sequence s{FindSequenceScanner(patterns), {}};
      for (const std::string_view p : patterns) s.engines.push_back(std::make_unique<OnigRegex>(std::string(p), "fuzz"));
      v->push_back(std::move(s));
    }
    return v;
  }();
  const std::string text = TextFrom(data, size);
  std::vector<Range> want, got;
  for (const auto& [pattern, scanner] : *scanners) {
    want.clear();
    got.clear();
    scanner.engine->FindMatches(text, want);
    scanner.scanner.scan(text, got);
    if (got != want) Differs("scanner differs from Oniguruma for pattern " + std::string(pattern), text, want, got);
    if (scanner.scanner.tiles && !MatchesTile(got, text.size()))
      Differs("matches do not tile the text for pattern " + std::string(pattern), text, want, got);
  }
  for (const Sequence& s : *sequences) {
    got.clear();
    s.scanner.scan(text, got);
    if (const std::vector<Range> in_turn = reference::EnginesInTurn(s.engines, text); got != in_turn)
      Differs("sequence scanner differs from Oniguruma's Splits in turn", text, in_turn, got);
  }
  return 0;
}
