// UTF-8 decoding and encoding with replacement of maximal invalid subparts (see utf8.h).
#include "utf8.h"

#include <cstring>

#include "past_end_reads.h"
#include "simdjson.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace triton_studio::tok::utf8 {

size_t AsciiRun(std::string_view s, size_t i) {
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  const size_t start = i;
  const auto load = [&](size_t at) {
    uint64_t word;
    std::memcpy(&word, s.data() + at, 8);
    return word & kHigh;
  };
  // The first high byte of a word is found by its bit, not by a byte loop after it (most runs
  // end at a non-ASCII character, in the middle of a word); a tail shorter than a word is read
  // as the text's last eight bytes.
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the first byte is the low bits");
#if defined(__SSE2__)
  for (; i + 16 <= s.size(); i += 16) {  // sixteen bytes a step where SSE2 has them
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    if (const auto high = static_cast<uint32_t>(_mm_movemask_epi8(v))) return i + __builtin_ctz(high) - start;
  }
#endif
  for (; i + 8 <= s.size(); i += 8)
    if (const uint64_t high = load(i)) return i + (static_cast<size_t>(__builtin_ctzll(high)) >> 3) - start;
  if (i < s.size() && s.size() >= 8) {
    const size_t skip = 8 - (s.size() - i);  // bytes of the last word before i, already known ASCII
    const uint64_t high = load(s.size() - 8) >> (8 * skip);
    return (high ? i + (static_cast<size_t>(__builtin_ctzll(high)) >> 3) : s.size()) - start;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i - start;
}

size_t ValidSequenceLength(std::string_view s, size_t i, size_t* maximal_subpart) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    if (maximal_subpart) *maximal_subpart = 1;
    return 0;
  }
  size_t have = 1;
  while (have < need) {
    if (i + have >= s.size()) {
      if (maximal_subpart) *maximal_subpart = have;
      return 0;
    }
    const auto b = static_cast<unsigned char>(s[i + have]);
    const bool ok = have == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) {
      if (maximal_subpart) *maximal_subpart = have;
      return 0;
    }
    ++have;
  }
  return need;
}

char32_t DecodeAt(std::string_view s, size_t i, size_t len) {
  const auto b = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (len) {
    case 1:
      return b(0);
    case 2:
      return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3:
      return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

void Append(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

size_t EncodedLength(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

// simdjson's validator: blocks of 32 or 64 bytes classified by table lookups, no branch per
// character. The byte loop it replaced chained each character's length through a table load and
// was 9% of a Llama-3.1 encode (docs/TOKENIZERS.md, stop 41).
// The implementation for this CPU is picked once: simdjson::validate_utf8 asks for it on every
// call, which was a fifth of validating a short text.
bool IsValid(std::string_view s) {
#if defined(__SSE2__)
  // A short ASCII text (a third of a corpus's texts are under 32 bytes) by four loads in place
  // (past_end_reads.h): simdjson copies a short text's tail into a padded block first, a memcpy
  // whose size varies text to text.
  if (s.size() - 1 < 64 && InOnePage(s.data(), 64)) {  // 1 to 64 bytes
    uint64_t high = 0;
    for (int k = 0; k < 4; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + 16 * k));
      high |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(v))) << (16 * k);
    }
    if ((high & (s.size() == 64 ? ~0ULL : (1ULL << s.size()) - 1)) == 0) return true;
  }
#endif
  static const simdjson::implementation* const best = simdjson::get_available_implementations().detect_best_supported();
  return best->validate_utf8(s.data(), s.size());
}

void AppendLossy(std::string_view s, std::string& out) {
  size_t run_start = 0;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      i += AsciiRun(s, i);
      continue;
    }
    size_t bad = 0;
    const size_t n = ValidSequenceLength(s, i, &bad);
    if (n != 0) {
      i += n;
      continue;
    }
    out.append(s.data() + run_start, i - run_start);
    out.append(kReplacementUtf8);
    i += bad;
    run_start = i;
  }
  out.append(s.data() + run_start, s.size() - run_start);
}

size_t IncompleteTail(std::string_view s) {
  // Look at the last up-to-3 bytes for a lead byte whose sequence is valid so far but unfinished.
  const size_t start = s.size() > 3 ? s.size() - 3 : 0;
  for (size_t i = s.size(); i > start;) {
    --i;
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) return 0;
    if (b >= 0xC0) {
      if (b < 0xC2 || b > 0xF4) return 0;  // never a lead byte
      size_t have = 0;
      const size_t n = ValidSequenceLength(s, i, &have);
      // Incomplete only if it ran out of input (not if it hit a bad byte).
      if (n == 0 && i + have == s.size()) return s.size() - i;
      return 0;
    }
  }
  return 0;
}

std::u32string ToCodePoints(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t bad = 0;
    const size_t n = ValidSequenceLength(s, i, &bad);
    if (n == 0) {
      out.push_back(kReplacement);
      i += bad;
    } else {
      out.push_back(DecodeAt(s, i, n));
      i += n;
    }
  }
  return out;
}

std::string FromCodePoints(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) Append(c, out);
  return out;
}

}  // namespace triton_studio::tok::utf8
