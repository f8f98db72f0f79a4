// String methods with JavaScript's UTF-16 semantics: indexes and lengths in code units, case
// mapping from tables generated from Node itself (builtins/string.ts).

#pragma once

#include "triton_studio/ts_math.h"

namespace tsrt {


inline Str toStr(const Str& s) { return s; }
inline Str toStr(double v) { return numberToString(v); }
inline Str toStr(bool b) { return b ? u"true" : u"false"; }

inline bool isJsWhiteSpace(char16_t c) {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}
inline Str trimStart(const Str& s) {
  size_t i = 0;
  while (i < s.size() && isJsWhiteSpace(s[i])) ++i;
  return s.substr(i);
}
inline Str trimEnd(const Str& s) {
  size_t j = s.size();
  while (j > 0 && isJsWhiteSpace(s[j - 1])) --j;
  return s.substr(0, j);
}
inline Str trim(const Str& s) { return trimEnd(trimStart(s)); }

// Relative index (slice, at): negative counts from the end, clamped to [0, len].
inline size_t relIndex(double v, size_t len) {
  double r = toIntegerOrInfinity(v);
  double l = static_cast<double>(len);
  if (r < 0) r = std::max(0.0, l + r);
  return static_cast<size_t>(std::min(r, l));
}
inline size_t clampIndex(double v, size_t len) {
  double r = toIntegerOrInfinity(v);
  return static_cast<size_t>(std::min(std::max(r, 0.0), static_cast<double>(len)));
}

inline Str slice(const Str& s, double start) { return s.substr(relIndex(start, s.size())); }
inline Str slice(const Str& s, double start, double end) {
  size_t a = relIndex(start, s.size()), b = relIndex(end, s.size());
  return a < b ? s.substr(a, b - a) : Str();
}
inline Str substring(const Str& s, double start) { return s.substr(clampIndex(start, s.size())); }
inline Str substring(const Str& s, double start, double end) {
  size_t a = clampIndex(start, s.size()), b = clampIndex(end, s.size());
  if (a > b) std::swap(a, b);
  return s.substr(a, b - a);
}
inline Str charAt(const Str& s, double i) {
  double p = toIntegerOrInfinity(i);
  if (p < 0 || p >= static_cast<double>(s.size())) return Str();
  return Str(1, s[static_cast<size_t>(p)]);
}
inline double charCodeAt(const Str& s, double i) {
  double p = toIntegerOrInfinity(i);
  if (p < 0 || p >= static_cast<double>(s.size())) return kNaN;
  return s[static_cast<size_t>(p)];
}
// s[i]: a one-unit string; outside the string Node gives undefined, compiled code an error.
inline Str strIndex(const Str& s, double i) {
  if (!(i >= 0 && i < static_cast<double>(s.size()) && i == std::trunc(i)))
    throwUndefined(u"string index " + numberToString(i) + u" is outside the string");
  return Str(1, s[static_cast<size_t>(i)]);
}
inline double indexOf(const Str& s, const Str& search, double from = 0) {
  size_t start = clampIndex(from, s.size());
  size_t r = s.find(search, start);
  return r == Str::npos ? -1.0 : static_cast<double>(r);
}
inline double lastIndexOf(const Str& s, const Str& search) {
  size_t r = s.rfind(search);
  return r == Str::npos ? -1.0 : static_cast<double>(r);
}
inline bool includes(const Str& s, const Str& search, double from = 0) { return indexOf(s, search, from) >= 0; }
inline bool startsWith(const Str& s, const Str& search, double pos = 0) {
  size_t p = clampIndex(pos, s.size());
  return s.size() - p >= search.size() && s.compare(p, search.size(), search) == 0;
}
inline bool endsWith(const Str& s, const Str& search) {
  return s.size() >= search.size() && s.compare(s.size() - search.size(), search.size(), search) == 0;
}
inline bool endsWith(const Str& s, const Str& search, double endPos) {
  size_t e = std::isnan(endPos) ? 0 : clampIndex(endPos, s.size());
  return e >= search.size() && s.compare(e - search.size(), search.size(), search) == 0;
}
inline Str repeat(const Str& s, double count) {
  double n = toIntegerOrInfinity(count);
  if (n < 0 || std::isinf(n)) throwRangeError(u"Invalid count value: " + numberToString(count));
  if (s.empty() || n == 0) return Str();
  if (static_cast<double>(s.size()) * n > 536870888.0) throwRangeError(u"Invalid string length");
  Str out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) out += s;
  return out;
}
inline Str pad(const Str& s, double maxLength, const Str& fill, bool atStart) {
  double m = toIntegerOrInfinity(maxLength);
  if (m <= static_cast<double>(s.size()) || fill.empty()) return s;
  if (m > 536870888.0) throwRangeError(u"Invalid string length");
  // One allocation of the final length: a hook that pads in a loop must not pay a growing
  // filler string, one append at a time, per character.
  size_t fillLen = static_cast<size_t>(m) - s.size();
  Str out;
  out.reserve(static_cast<size_t>(m));
  if (!atStart) out += s;
  if (fill.size() == 1) {
    out.append(fillLen, fill[0]);
  } else {
    for (size_t left = fillLen; left > 0;) {
      size_t k = std::min(left, fill.size());
      out.append(fill, 0, k);
      left -= k;
    }
  }
  if (atStart) out += s;
  return out;
}
inline Str padStart(const Str& s, double n, const Str& fill = u" ") { return pad(s, n, fill, true); }
inline Str padEnd(const Str& s, double n, const Str& fill = u" ") { return pad(s, n, fill, false); }

// GetSubstitution for a string pattern: $$, $&, $`, $' (no capture groups).
inline Str substitution(const Str& matched, const Str& s, size_t position, const Str& replacement) {
  Str out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    char16_t c = replacement[i];
    if (c == u'$' && i + 1 < replacement.size()) {
      char16_t n = replacement[i + 1];
      if (n == u'$') {
        out.push_back(u'$');
        ++i;
        continue;
      }
      if (n == u'&') {
        out += matched;
        ++i;
        continue;
      }
      if (n == u'`') {
        out += s.substr(0, position);
        ++i;
        continue;
      }
      if (n == u'\'') {
        size_t tail = std::min(s.size(), position + matched.size());
        out += s.substr(tail);
        ++i;
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}
inline Str replace(const Str& s, const Str& search, const Str& replacement) {
  size_t p = s.find(search);
  if (p == Str::npos) return s;
  return s.substr(0, p) + substitution(search, s, p, replacement) + s.substr(p + search.size());
}
inline Str replaceAll(const Str& s, const Str& search, const Str& replacement) {
  std::vector<size_t> positions;
  size_t advance = std::max<size_t>(1, search.size());
  size_t p = s.find(search, 0);
  while (p != Str::npos) {
    positions.push_back(p);
    p = p + advance > s.size() ? Str::npos : s.find(search, p + advance);
  }
  Str out;
  size_t end = 0;
  for (size_t q : positions) {
    out += s.substr(end, q - end);
    out += substitution(search, s, q, replacement);
    end = q + search.size();
  }
  if (end < s.size()) out += s.substr(end);
  return out;
}
inline Str fromCharCode(std::initializer_list<double> codes) {
  Str out;
  for (double c : codes) out.push_back(static_cast<char16_t>(toUint32(c) & 0xFFFF));
  return out;
}
inline Str fromCodePoint(std::initializer_list<double> cps) {
  Str out;
  for (double c : cps) {
    if (!(c >= 0 && c <= 0x10FFFF && c == std::trunc(c)))
      throwRangeError(u"Invalid code point " + numberToString(c));
    appendCodePoint(out, static_cast<char32_t>(c));
  }
  return out;
}

template <class Table, size_t N>
inline const case_tables::CaseMapping* findMapping(const Table (&table)[N], char32_t cp) {
  auto it = std::lower_bound(table, table + N, cp, [](const case_tables::CaseMapping& m, char32_t v) { return m.cp < v; });
  return it != table + N && it->cp == cp ? it : nullptr;
}
template <size_t N>
inline bool inRanges(const case_tables::CodePointRange (&table)[N], char32_t cp) {
  auto it = std::upper_bound(table, table + N, cp, [](char32_t v, const case_tables::CodePointRange& r) { return v < r.first; });
  return it != table && (it - 1)->last >= cp;
}

inline Str toUpperCase(const Str& s) {
  Str out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (cp < 0x80) {
      out.push_back(cp >= 'a' && cp <= 'z' ? static_cast<char16_t>(cp - 32) : static_cast<char16_t>(cp));
    } else if (auto m = findMapping(case_tables::kUpper, cp)) {
      out.append(m->units, m->length);
    } else {
      out.append(s, i, units);
    }
    i += units;
  }
  return out;
}

// Final_Sigma (Unicode 3.13): Σ lowercases to ς after a cased letter (case-ignorables skipped)
// when no cased letter follows.
inline bool isFinalSigma(const Str& s, size_t at) {
  bool before = false;
  for (size_t i = at; i > 0;) {
    size_t j = i - 1;
    if (isLow(s[j]) && j > 0 && isHigh(s[j - 1])) --j;
    size_t units;
    char32_t cp = codePointAt(s, j, &units);
    if (!inRanges(case_tables::kCaseIgnorable, cp)) {
      before = inRanges(case_tables::kCased, cp);
      break;
    }
    i = j;
  }
  if (!before) return false;
  for (size_t i = at + 1; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (!inRanges(case_tables::kCaseIgnorable, cp)) return !inRanges(case_tables::kCased, cp);
    i += units;
  }
  return true;
}

inline Str toLowerCase(const Str& s) {
  Str out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (cp < 0x80) {
      out.push_back(cp >= 'A' && cp <= 'Z' ? static_cast<char16_t>(cp + 32) : static_cast<char16_t>(cp));
    } else if (cp == 0x3A3 && isFinalSigma(s, i)) {
      out.push_back(0x3C2);
    } else if (auto m = findMapping(case_tables::kLower, cp)) {
      out.append(m->units, m->length);
    } else {
      out.append(s, i, units);
    }
    i += units;
  }
  return out;
}

}  // namespace tsrt
