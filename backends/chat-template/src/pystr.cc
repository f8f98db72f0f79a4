// Python str semantics over UTF-8 (see pystr.h).
#include "pystr.h"

#include <cstdio>

#include "triton_studio/chat_template.h"
#include "utf8.h"

namespace triton_studio::chat::detail {

bool IsPyWhitespace(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

namespace {

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < s.size()) out.push_back(DecodeUtf8(s, i));
  return out;
}

bool InSet(uint32_t cp, const std::vector<uint32_t>& set) {
  for (uint32_t c : set) {
    if (c == cp) return true;
  }
  return false;
}

bool Caseless(uint32_t cp) {
  if (cp < 0x80) return !((cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z'));
  if (cp >= 0x80 && cp < 0xC0) return cp != 0xB5;  // µ upper-cases to Greek Mu
  if (cp == 0xD7 || cp == 0xF7) return true;
  if (cp >= 0x2B0 && cp < 0x370 && cp != 0x345) return true;     // modifiers, combining marks
  if (cp >= 0x590 && cp < 0x10A0) return true;                   // Hebrew ... Myanmar
  if (cp >= 0x1100 && cp < 0x13A0) return true;                  // Hangul Jamo, Ethiopic
  if (cp >= 0x2000 && cp < 0x2160 && cp != 0x2126 && cp != 0x212A && cp != 0x212B && cp != 0x2132 &&
      cp != 0x214E && !(cp >= 0x2102 && cp < 0x2150)) {
    return true;                                                 // punctuation, symbols
  }
  if (cp >= 0x2190 && cp < 0x24B6) return true;
  if (cp >= 0x24EA && cp < 0x2C00) return true;
  if (cp >= 0x2E80 && cp < 0xA640) return true;                  // CJK, kana, Yi
  if (cp >= 0xAC00 && cp < 0xD800) return true;                  // Hangul
  if (cp >= 0xF900 && cp < 0xFB00) return true;
  if (cp >= 0xFB50 && cp < 0xFF21) return true;
  if (cp >= 0xFF3B && cp < 0xFF41) return true;
  if (cp >= 0xFF5B && cp < 0x10000) return true;
  if (cp >= 0x1F000 && cp < 0x1E900 + 0x100000) return cp >= 0x1F000;  // emoji, CJK ext planes
  return false;
}

// Simple one-to-one mappings; nullopt when the character is not covered.
std::optional<uint32_t> Upper1(uint32_t cp) {
  if (cp >= 'a' && cp <= 'z') return cp - 32;
  if (cp < 0x80 || Caseless(cp)) return cp;
  if (cp >= 0xE0 && cp <= 0xFE && cp != 0xF7) return cp - 32;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp;
  if (cp == 0xFF) return 0x178;
  if (cp >= 0x100 && cp <= 0x137) return cp & ~1u;
  if (cp >= 0x139 && cp <= 0x148) return (cp & 1) ? cp : cp - 1;
  if (cp >= 0x14A && cp <= 0x177) return cp & ~1u;
  if (cp == 0x178) return cp;
  if (cp >= 0x179 && cp <= 0x17E) return (cp & 1) ? cp : cp - 1;
  if (cp >= 0x3B1 && cp <= 0x3C9 && cp != 0x3C2) return cp - 32;
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) return cp;
  if (cp >= 0x430 && cp <= 0x44F) return cp - 32;
  if (cp >= 0x450 && cp <= 0x45F) return cp - 80;
  if (cp >= 0x400 && cp <= 0x42F) return cp;
  return std::nullopt;
}

std::optional<uint32_t> Lower1(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp < 0x80 || Caseless(cp)) return cp;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;
  if (cp >= 0xDF && cp <= 0xFF && cp != 0xF7) return cp;
  if (cp >= 0x100 && cp <= 0x137 && cp != 0x130) return cp | 1u;
  if (cp >= 0x139 && cp <= 0x148) return (cp & 1) ? cp + 1 : cp;
  if (cp >= 0x14A && cp <= 0x177) return cp | 1u;
  if (cp == 0x178) return 0xFF;
  if (cp >= 0x179 && cp <= 0x17E) return (cp & 1) ? cp + 1 : cp;
  if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2 && cp != 0x3A3) return cp + 32;
  if (cp >= 0x3B1 && cp <= 0x3C9) return cp;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  if (cp >= 0x430 && cp <= 0x45F) return cp;
  return std::nullopt;
}

[[noreturn]] void Uncovered(const char* op, uint32_t cp) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "str.%s() of U+%04X", op, cp);
  throw UnsupportedConstructError(buf, 0, 0);
}

void AppendUpper(std::string& out, uint32_t cp) {
  if (cp == 0xDF) {
    out += "SS";
    return;
  }
  auto u = Upper1(cp);
  if (!u) Uncovered("upper", cp);
  AppendUtf8(out, *u);
}

void AppendLower(std::string& out, uint32_t cp) {
  auto l = Lower1(cp);
  if (!l) Uncovered("lower", cp);
  AppendUtf8(out, *l);
}

bool IsCased(uint32_t cp) {
  if (Caseless(cp)) return false;
  return true;
}

}  // namespace

std::string_view PyStrip(std::string_view s, const std::optional<std::string_view>& chars, bool left, bool right) {
  std::vector<uint32_t> set;
  if (chars) set = CodePoints(*chars);
  auto strip_cp = [&](uint32_t cp) { return chars ? InSet(cp, set) : IsPyWhitespace(cp); };
  size_t begin = 0, end = s.size();
  if (left) {
    while (begin < end) {
      size_t i = begin;
      uint32_t cp = DecodeUtf8(s, i);
      if (!strip_cp(cp)) break;
      begin = i;
    }
  }
  if (right) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      size_t i = start;
      uint32_t cp = DecodeUtf8(s, i);
      if (!strip_cp(cp)) break;
      end = start;
    }
  }
  return s.substr(begin, end - begin);
}

std::vector<std::string> PySplit(std::string_view s, const std::optional<std::string_view>& sep, int64_t maxsplit,
                                 bool from_right) {
  std::vector<std::string> out;
  if (sep) {
    if (sep->empty()) throw std::invalid_argument("empty separator");
    if (!from_right) {
      size_t pos = 0;
      while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
        size_t f = s.find(*sep, pos);
        if (f == std::string_view::npos) break;
        out.emplace_back(s.substr(pos, f - pos));
        pos = f + sep->size();
      }
      out.emplace_back(s.substr(pos));
      return out;
    }
    std::vector<std::string> rev;
    size_t end = s.size();
    while (maxsplit < 0 || static_cast<int64_t>(rev.size()) < maxsplit) {
      if (end < sep->size()) break;
      size_t f = s.rfind(*sep, end - sep->size());
      if (f == std::string_view::npos) break;
      rev.emplace_back(s.substr(f + sep->size(), end - f - sep->size()));
      end = f;
    }
    rev.emplace_back(s.substr(0, end));
    return std::vector<std::string>(rev.rbegin(), rev.rend());
  }
  // Whitespace runs; with maxsplit reached, the rest is kept as is (its far end unstripped).
  std::vector<size_t> offs;  // byte offset of each code point, plus the end
  std::vector<bool> ws;
  size_t i = 0;
  while (i < s.size()) {
    offs.push_back(i);
    ws.push_back(IsPyWhitespace(DecodeUtf8(s, i)));
  }
  offs.push_back(s.size());
  size_t n = ws.size();
  int64_t splits = 0;
  if (!from_right) {
    size_t k = 0;
    while (true) {
      while (k < n && ws[k]) ++k;
      if (k >= n) break;
      if (maxsplit >= 0 && splits == maxsplit) {
        out.emplace_back(s.substr(offs[k]));
        break;
      }
      size_t start = k;
      while (k < n && !ws[k]) ++k;
      out.emplace_back(s.substr(offs[start], offs[k] - offs[start]));
      ++splits;
    }
    return out;
  }
  std::vector<std::string> rev;
  size_t k = n;
  while (true) {
    while (k > 0 && ws[k - 1]) --k;
    if (k == 0) break;
    if (maxsplit >= 0 && splits == maxsplit) {
      rev.emplace_back(s.substr(0, offs[k]));
      break;
    }
    size_t end = k;
    while (k > 0 && !ws[k - 1]) --k;
    rev.emplace_back(s.substr(offs[k], offs[end] - offs[k]));
    ++splits;
  }
  return std::vector<std::string>(rev.rbegin(), rev.rend());
}

std::vector<std::string> PySplitLines(std::string_view s, bool keepends) {
  std::vector<std::string> out;
  size_t start = 0, i = 0;
  while (i < s.size()) {
    size_t at = i;
    uint32_t cp = DecodeUtf8(s, i);
    bool boundary = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x1C || cp == 0x1D || cp == 0x1E ||
                    cp == 0x85 || cp == 0x2028 || cp == 0x2029;
    if (!boundary) continue;
    if (cp == '\r' && i < s.size() && s[i] == '\n') ++i;
    out.emplace_back(s.substr(start, (keepends ? i : at) - start));
    start = i;
  }
  if (start < s.size()) out.emplace_back(s.substr(start));
  return out;
}

std::string PyUpper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) AppendUpper(out, DecodeUtf8(s, i));
  return out;
}

std::string PyLower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) AppendLower(out, DecodeUtf8(s, i));
  return out;
}

std::string PyCapitalize(std::string_view s) {
  std::string out;
  size_t i = 0;
  bool first = true;
  while (i < s.size()) {
    uint32_t cp = DecodeUtf8(s, i);
    if (first) {
      AppendUpper(out, cp);
      first = false;
    } else {
      AppendLower(out, cp);
    }
  }
  return out;
}

std::string PyTitle(std::string_view s) {
  std::string out;
  size_t i = 0;
  bool prev_cased = false;
  while (i < s.size()) {
    uint32_t cp = DecodeUtf8(s, i);
    if (prev_cased) {
      AppendLower(out, cp);
    } else {
      AppendUpper(out, cp);
    }
    prev_cased = IsCased(cp);
  }
  return out;
}

bool PyIsLower(std::string_view s) {
  bool cased = false;
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeUtf8(s, i);
    if (Caseless(cp)) continue;
    auto l = Lower1(cp);
    if (!l) Uncovered("islower", cp);
    if (*l != cp) return false;
    cased = true;
  }
  return cased;
}

bool PyIsUpper(std::string_view s) {
  bool cased = false;
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeUtf8(s, i);
    if (Caseless(cp)) continue;
    auto u = Upper1(cp);
    if (!u) Uncovered("isupper", cp);
    if (*u != cp) return false;
    cased = true;
  }
  return cased;
}

}  // namespace triton_studio::chat::detail
