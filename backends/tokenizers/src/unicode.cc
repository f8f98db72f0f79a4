// Unicode properties and normalization forms from the generated tables (see unicode.h).
#include "unicode.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace triton_studio::tok::unicode {
namespace {

struct MappingEntry {
  uint32_t cp, offset, length;
};
struct CompositionEntry {
  uint32_t first, second, composite;
};
struct CodePointRange {
  uint32_t first, last;
};
struct CodePointPair {
  uint32_t from, to;
};

#include "hf_unicode_versions.inc"
#include "unicode_tables.inc"

template <size_t N>
bool InRanges(const CodePointRange (&table)[N], char32_t c) {
  const CodePointRange* it = std::upper_bound(table, table + N, static_cast<uint32_t>(c),
                                              [](uint32_t v, const CodePointRange& r) { return v < r.first; });
  return it != table && c <= (it - 1)->last;
}

// True for code points HF's normalization forms do not know (assigned after Unicode 9.0).
bool UnknownToHfNormalization(char32_t c) { return InRanges(kAssignedAfterUnicode9, c); }

// unicode_tables.inc's bit 64 (\p{M}, Unicode 14.0) is not read: StripAccents needs HF's 9.0 marks.
constexpr uint8_t kLetter = 1, kNumber = 2, kMarkNonspacing = 4, kPunct = 8, kOther = 16, kWhiteSpace = 32;

inline uint8_t Flags(char32_t c) {
  if (c >= 0x110000) return kOther;
  return kFlagStage2[static_cast<size_t>(kFlagStage1[c >> 8]) * 256 + (c & 0xFF)];
}

template <size_t N>
const MappingEntry* FindMapping(const MappingEntry (&table)[N], char32_t c) {
  const MappingEntry* end = table + N;
  const MappingEntry* it =
      std::lower_bound(table, end, c, [](const MappingEntry& e, char32_t v) { return e.cp < v; });
  return (it != end && it->cp == c) ? it : nullptr;
}

// Hangul syllable arithmetic (Unicode chapter 3.12): decomposition and composition are algorithmic.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

void Decompose(char32_t c, bool compatibility, std::u32string& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const char32_t s = c - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  const MappingEntry* e = compatibility ? FindMapping(kNfkd, c) : FindMapping(kNfd, c);
  if (e == nullptr || UnknownToHfNormalization(c)) {
    out.push_back(c);
    return;
  }
  // The tables hold full (recursive) decompositions already.
  const uint32_t* pool = compatibility ? kNfkdPool : kNfdPool;
  out.append(reinterpret_cast<const char32_t*>(pool + e->offset), e->length);
}

void CanonicalOrder(std::u32string& s) {
  // Stable sort of each run of non-starters by combining class (insertion sort: runs are short).
  for (size_t i = 1; i < s.size(); ++i) {
    const uint8_t cc = CombiningClass(s[i]);
    if (cc == 0) continue;
    size_t j = i;
    while (j > 0) {
      const uint8_t prev = CombiningClass(s[j - 1]);
      if (prev == 0 || prev <= cc) break;
      std::swap(s[j - 1], s[j]);
      --j;
    }
  }
}

bool Compose(char32_t a, char32_t b, char32_t& out) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount) {
    out = kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    return true;
  }
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount) {
    out = a + (b - kTBase);
    return true;
  }
  const CompositionEntry* end = kCompositions + sizeof(kCompositions) / sizeof(kCompositions[0]);
  const CompositionEntry* it = std::lower_bound(
      kCompositions, end, std::make_pair(a, b), [](const CompositionEntry& e, std::pair<char32_t, char32_t> v) {
        return e.first != v.first ? e.first < v.first : e.second < v.second;
      });
  if (it != end && it->first == a && it->second == b && !UnknownToHfNormalization(it->composite)) {
    out = it->composite;
    return true;
  }
  return false;
}

void CanonicalCompose(std::u32string& s) {
  if (s.empty()) return;
  size_t starter = 0;
  bool have_starter = CombiningClass(s[0]) == 0;
  std::u32string out;
  out.reserve(s.size());
  out.push_back(s[0]);
  int last_cc = have_starter ? 0 : 256;
  for (size_t i = 1; i < s.size(); ++i) {
    const char32_t c = s[i];
    const int cc = CombiningClass(c);
    char32_t composite;
    // A character composes with the last starter unless blocked by an intervening character of
    // equal or higher combining class (or an intervening starter).
    const bool blocked = out.size() - 1 != starter && (last_cc == 0 || last_cc >= cc);
    if (have_starter && !blocked && Compose(out[starter], c, composite)) {
      out[starter] = composite;
      continue;
    }
    if (cc == 0) {
      starter = out.size();
      have_starter = true;
    }
    last_cc = cc;
    out.push_back(c);
  }
  s.swap(out);
}

}  // namespace

bool IsLetter(char32_t c) { return Flags(c) & kLetter; }
bool IsNumber(char32_t c) { return Flags(c) & kNumber; }
bool IsWhiteSpace(char32_t c) { return Flags(c) & kWhiteSpace; }
bool IsPunctuation(char32_t c) { return Flags(c) & kPunct; }
bool IsOther(char32_t c) { return Flags(c) & kOther; }
bool IsMarkNonspacing(char32_t c) { return Flags(c) & kMarkNonspacing; }
bool IsMarkUnicode9(char32_t c) { return InRanges(kMarkUnicode9, c); }

uint8_t CombiningClass(char32_t c) {
  if (c >= 0x110000) return 0;
  const uint8_t cc = kCccStage2[static_cast<size_t>(kCccStage1[c >> 8]) * 256 + (c & 0xFF)];
  return cc != 0 && UnknownToHfNormalization(c) ? 0 : cc;
}

void AppendLowercase(char32_t c, std::u32string& out) {
  if (c < 0x80) {
    out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
    return;
  }
  const MappingEntry* e = FindMapping(kLowercase, c);
  if (e == nullptr) {
    const CodePointPair* end = kLowercaseAfterUnicode14 + std::size(kLowercaseAfterUnicode14);
    const CodePointPair* it = std::lower_bound(kLowercaseAfterUnicode14, end, static_cast<uint32_t>(c),
                                               [](const CodePointPair& p, uint32_t v) { return p.from < v; });
    out.push_back(it != end && it->from == c ? it->to : c);
    return;
  }
  out.append(reinterpret_cast<const char32_t*>(kLowercasePool + e->offset), e->length);
}

std::u32string Normalize(std::u32string_view text, NormalForm form) {
  const bool compat = form == NormalForm::kNfkd || form == NormalForm::kNfkc;
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) Decompose(c, compat, out);
  CanonicalOrder(out);
  if (form == NormalForm::kNfc || form == NormalForm::kNfkc) CanonicalCompose(out);
  return out;
}

FormChecks::FormChecks(NormalForm form)
    : inert_(kLimit / 64, 0), yes_(kLimit / 64, 0), maybe_(kLimit / 64, 0), bare_(kLimit / 64, 0) {
  const bool compose = form == NormalForm::kNfc || form == NormalForm::kNfkc;
  const bool compat = form == NormalForm::kNfkd || form == NormalForm::kNfkc;
  std::vector<bool> second(kLimit), mapped(kLimit);
  if (compose) {  // a character some pair ends in may compose with the one before it: "Maybe"
    for (const CompositionEntry& e : kCompositions)
      if (e.second < kLimit) second[e.second] = true;
    for (char32_t c = kVBase; c < kVBase + kVCount; ++c) second[c] = true;
    for (char32_t c = kTBase + 1; c < kTBase + kTCount; ++c) second[c] = true;
  }
  const auto mark = [&](const auto& table) {
    for (const MappingEntry& e : table)
      if (e.cp < kLimit) mapped[e.cp] = true;
  };
  if (compat) {
    mark(kNfkd);
  } else {
    mark(kNfd);
  }
  for (char32_t c = kSBase; c < kSBase + kSCount; ++c) mapped[c] = true;
  for (char32_t c = 0; c < kLimit; ++c) {
    // A character with a decomposition answers "Yes" only where the form gives it back (é in NFC).
    const bool kept = !mapped[c] || Normalize(std::u32string(1, c), form) == std::u32string(1, c);
    const bool starter = CombiningClass(c) == 0;
    const uint64_t bit = uint64_t{1} << (c % 64);
    if (kept && !second[c]) yes_[c / 64] |= bit;
    if (kept && !second[c] && starter) inert_[c / 64] |= bit;
    if (kept && second[c]) maybe_[c / 64] |= bit;
    if (!mapped[c] && starter) bare_[c / 64] |= bit;
  }
}

int FormChecks::YesClass(char32_t c) const {
  if (Inert(c)) return 0;
  return Bit(yes_, c) ? CombiningClass(c) : -1;
}

int FormChecks::KeptClass(char32_t before, char32_t c) const {
  if (const int k = YesClass(c); k >= 0) return k;
  // Nothing stands between them, and `before` is the text's own character (no decomposition to
  // recompose in another order): the pair is kept unless it is a composition's.
  char32_t composite;
  if (!Bit(maybe_, c) || !Bit(bare_, before) || Compose(before, c, composite)) return -1;
  return CombiningClass(c);
}

namespace {
template <NormalForm kForm>
const FormChecks& FormChecksFor() {
  static const FormChecks checks(kForm);
  return checks;
}
}  // namespace

const FormChecks& FormChecksOf(NormalForm form) {
  switch (form) {
    case NormalForm::kNfd:
      return FormChecksFor<NormalForm::kNfd>();
    case NormalForm::kNfkd:
      return FormChecksFor<NormalForm::kNfkd>();
    case NormalForm::kNfc:
      return FormChecksFor<NormalForm::kNfc>();
    case NormalForm::kNfkc:
      break;
  }
  return FormChecksFor<NormalForm::kNfkc>();
}

const char* Version() { return TS_UNICODE_VERSION; }

}  // namespace triton_studio::tok::unicode
