#include "unicode_scripts.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "utf8.h"

namespace triton_studio::tok {
namespace {

struct ScriptRange {
  uint32_t first, last;
  uint8_t script;
};

#include "script_tables.inc"

uint8_t RawScript(char32_t c) {
  const ScriptRange* end = kScriptRanges + sizeof(kScriptRanges) / sizeof(kScriptRanges[0]);
  const ScriptRange* it = std::upper_bound(kScriptRanges, end, static_cast<uint32_t>(c),
                                           [](uint32_t v, const ScriptRange& r) { return v < r.first; });
  if (it == kScriptRanges || c > (it - 1)->last) return kScriptAny;
  return (it - 1)->script;
}

// SentencePiece's IsValidSentencePiece adjustments, as HF's fixed_script: the prolonged sound mark
// and kana count as Han, and a space belongs to no script.
uint8_t FixedScript(char32_t c) {
  if (c == 0x30FC) return kScriptHan;
  if (c == ' ') return kScriptAny;
  const uint8_t s = RawScript(c);
  return s == kScriptHiragana || s == kScriptKatakana ? kScriptHan : s;
}

class UnicodeScripts final : public PreTokenizer {
 public:
  // A piece starts at every code point whose script (not Any) differs from the last script seen
  // (Any code points never set it). As in HF, nothing starts at 0 when the text opens with Any
  // code points, so those are dropped, and a piece of Any code points only disappears.
  void PreTokenize(Pieces& pieces) const override {
    std::vector<Range> out;
    out.reserve(pieces.ranges.size());
    const std::string_view text(pieces.text);
    for (const Range& r : pieces.ranges) {
      int last = -1;
      uint32_t start = r.second;  // no piece yet
      for (uint32_t i = r.first; i < r.second;) {
        size_t n = utf8::ValidSequenceLength(text, i);
        if (n == 0) n = 1;
        const uint8_t script = FixedScript(utf8::DecodeAt(text, i, n));
        if (script != kScriptAny && script != last) {
          if (start < i) out.emplace_back(start, i);
          start = i;
        }
        if (script != kScriptAny) last = script;
        i += static_cast<uint32_t>(n);
      }
      if (start < r.second) out.emplace_back(start, r.second);
    }
    pieces.ranges.swap(out);
  }
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeUnicodeScripts(const Json& node, const std::string& path) {
  AllowOnlyKeys(node, path, {});
  return std::make_unique<UnicodeScripts>();
}

}  // namespace triton_studio::tok
