// Unicode character properties and normalization forms, from the tables scripts/gen-unicode-tables.ts
// generates out of the UCD (unicode_tables.inc, Unicode 14.0), adjusted to the versions HF's own
// code carries (hf_unicode_versions.inc): normalization forms as Unicode 9.0, lowercase as 17.0.
// Code points are char32_t; text is UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace triton_studio::tok::unicode {

// General-category based classes, as regex engines and HF's helpers define them.
bool IsLetter(char32_t c);           // \p{L}
bool IsNumber(char32_t c);           // \p{N}
bool IsWhiteSpace(char32_t c);       // White_Space property (\s in Rust regex and Oniguruma)
bool IsPunctuation(char32_t c);      // \p{P}
bool IsOther(char32_t c);            // Cc, Cf, Co, Cs: \p{C} without unassigned code points (as HF's BERT)
bool IsMarkNonspacing(char32_t c);   // \p{Mn}
bool IsMarkUnicode9(char32_t c);     // \p{M} in Unicode 9.0: HF's is_combining_mark (StripAccents)
uint8_t CombiningClass(char32_t c);  // canonical combining class (0 = starter), as HF's Unicode 9.0 data has it

// Appends the full lowercase mapping of `c` (may be several code points, e.g. U+0130), Unicode 17.0.
void AppendLowercase(char32_t c, std::u32string& out);

enum class NormalForm { kNfd, kNfkd, kNfc, kNfkc };
// Normalizes a sequence of code points (canonical ordering included).
std::u32string Normalize(std::u32string_view text, NormalForm form);
// Unicode's quick check (UAX #15) for one form, per character, for planes 0 and 1 (beyond them
// every answer is "normalize to know"): text whose characters are all inert, or marks that answer
// "Yes" with the classes of each run of them in order, is already in the form, and normalizing it
// can be skipped. One bit per code point each; built on first use of a form (a few milliseconds).
class FormChecks {
 public:
  static constexpr char32_t kLimit = 0x20000;
  explicit FormChecks(NormalForm form);
  // A starter the form gives back unchanged that composes with nothing before it: quick check
  // "Yes" with combining class 0. Text splits before one into parts that normalize on their own.
  bool Inert(char32_t c) const { return Bit(inert_, c); }
  // The combining class of a character that answers "Yes" (the form gives it back and it composes
  // with nothing before it), -1 for "No" and "Maybe".
  int YesClass(char32_t c) const;
  // The combining class of `c` when the form keeps it right after `before` (0: nothing before): it
  // answers "Yes", or "Maybe" (it may compose with the character before it: a Bengali vowel sign
  // AA, U+0301) after a starter without a decomposition in the form that it does not compose
  // with. -1: not known without normalizing.
  int KeptClass(char32_t before, char32_t c) const;

 private:
  static bool Bit(const std::vector<uint64_t>& bits, char32_t c) {
    return c < kLimit && (bits[c / 64] >> (c % 64) & 1);
  }
  std::vector<uint64_t> inert_, yes_, maybe_, bare_;  // bare: a starter without a decomposition
};
const FormChecks& FormChecksOf(NormalForm form);

const char* Version();

}  // namespace triton_studio::tok::unicode
