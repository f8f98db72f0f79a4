#include "graphemes.h"

#include <algorithm>
#include <cstdint>

#include "utf8.h"

namespace triton_studio::tok::graphemes {
namespace {

struct GraphemeRange {
  uint32_t first, last;
  uint8_t props;
};

#include "grapheme_tables.inc"

// The order scripts/gen-unicode-tables.ts writes Grapheme_Cluster_Break values in.
enum GraphemeBreak : uint8_t { kOther, kCR, kLF, kControl, kExtend, kZWJ, kRI, kPrepend, kSpacingMark, kL, kV, kT, kLV, kLVT };
enum IndicConjunctBreak : uint8_t { kIncbNone, kIncbLinker, kIncbConsonant, kIncbExtend };

uint8_t Props(char32_t c) {
  if (c < 0x80) return c == '\r' ? kCR : c == '\n' ? kLF : (c < 0x20 || c == 0x7F) ? kControl : kOther;
  const GraphemeRange* end = kGraphemeRanges + sizeof(kGraphemeRanges) / sizeof(kGraphemeRanges[0]);
  const GraphemeRange* it =
      std::upper_bound(kGraphemeRanges, end, static_cast<uint32_t>(c),
                       [](uint32_t v, const GraphemeRange& r) { return v < r.first; });
  if (it == kGraphemeRanges || c > (it - 1)->last) return 0;
  return (it - 1)->props;
}

GraphemeBreak Gcb(uint8_t props) { return static_cast<GraphemeBreak>(props & 0x0F); }
bool Pictographic(uint8_t props) { return (props & 0x10) != 0; }
IndicConjunctBreak Incb(uint8_t props) { return static_cast<IndicConjunctBreak>((props >> 5) & 0x03); }

// What the rules that look further back than one code point (GB9c, GB11, GB12/13) need to know
// about the cluster so far.
struct History {
  bool pictographic_run = false;  // ExtPict Extend* (GB11's left side before ZWJ)
  bool pictographic_zwj = false;  // ExtPict Extend* ZWJ just seen
  bool conjunct_open = false;     // InCB Consonant [Extend Linker]*
  bool conjunct_linked = false;   // ... with a Linker among them (GB9c's left side)
  int regional_count = 0;         // Regional_Indicator run length ending at the previous code point

  void Advance(uint8_t props) {
    const GraphemeBreak gcb = Gcb(props);
    const IndicConjunctBreak incb = Incb(props);
    pictographic_zwj = pictographic_run && gcb == kZWJ;
    pictographic_run = Pictographic(props) || (pictographic_run && gcb == kExtend);
    if (incb == kIncbConsonant) {
      conjunct_open = true;
      conjunct_linked = false;
    } else if (conjunct_open && (incb == kIncbExtend || incb == kIncbLinker)) {
      conjunct_linked = conjunct_linked || incb == kIncbLinker;
    } else {
      conjunct_open = conjunct_linked = false;
    }
    regional_count = gcb == kRI ? regional_count + 1 : 0;
  }
};

bool IsBreak(uint8_t prev, uint8_t next, const History& h) {
  const GraphemeBreak a = Gcb(prev), b = Gcb(next);
  if (a == kCR && b == kLF) return false;                                             // GB3
  if (a == kCR || a == kLF || a == kControl) return true;                             // GB4
  if (b == kCR || b == kLF || b == kControl) return true;                             // GB5
  if (a == kL && (b == kL || b == kV || b == kLV || b == kLVT)) return false;         // GB6
  if ((a == kLV || a == kV) && (b == kV || b == kT)) return false;                    // GB7
  if ((a == kLVT || a == kT) && b == kT) return false;                                // GB8
  if (b == kExtend || b == kZWJ || b == kSpacingMark) return false;                   // GB9, GB9a
  if (a == kPrepend) return false;                                                    // GB9b
  if (Incb(next) == kIncbConsonant && h.conjunct_open && h.conjunct_linked) return false;  // GB9c
  if (h.pictographic_zwj && Pictographic(next)) return false;                         // GB11
  if (a == kRI && b == kRI && h.regional_count % 2 == 1) return false;                // GB12, GB13
  return true;                                                                        // GB999
}

}  // namespace

size_t ClusterLength(std::string_view text, size_t pos) {
  const size_t len = utf8::ValidSequenceLength(text, pos);
  if (len == 0) return 1;
  uint8_t prev = Props(utf8::DecodeAt(text, pos, len));
  History history;
  history.Advance(prev);
  size_t end = pos + len;
  while (end < text.size()) {
    const size_t n = utf8::ValidSequenceLength(text, end);
    if (n == 0) break;
    const uint8_t next = Props(utf8::DecodeAt(text, end, n));
    if (IsBreak(prev, next, history)) break;
    history.Advance(next);
    prev = next;
    end += n;
  }
  return end - pos;
}

const char* UnicodeVersion() { return TS_GRAPHEME_UNICODE_VERSION; }

}  // namespace triton_studio::tok::graphemes
