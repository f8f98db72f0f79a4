// Unicode character properties and normalization forms, from the tables scripts/gen-unicode-tables.ts
// generates out of the UCD (unicode_tables.inc, Unicode 14.0), adjusted to the versions HF's own
// code carries (hf_unicode_versions.inc): normalization forms as Unicode 9.0, lowercase as 17.0.
// Code points are char32_t; text is UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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
// True when text made only of such characters is already in `form`, so normalizing it can be
// skipped: a starter the form gives back unchanged that composes with nothing before it
// (Unicode's quick check "Yes", with combining class 0). False beyond U+1FFFF (normalize those).
bool IsInert(char32_t c, NormalForm form);

const char* Version();

}  // namespace triton_studio::tok::unicode
