// JSON.stringify for the shapes the subset has (builtins/json.ts).

#pragma once

#include "triton_studio/ts_collections.h"

namespace tsrt {

// JSON.stringify for the known shapes (objects print through generated functions).

inline void jsonQuote(Str& out, const Str& s) {
  static const char16_t* hex = u"0123456789abcdef";
  out.push_back(u'"');
  for (size_t i = 0; i < s.size(); ++i) {
    char16_t c = s[i];
    switch (c) {
      case u'"': out += u"\\\""; break;
      case u'\\': out += u"\\\\"; break;
      case u'\b': out += u"\\b"; break;
      case u'\f': out += u"\\f"; break;
      case u'\n': out += u"\\n"; break;
      case u'\r': out += u"\\r"; break;
      case u'\t': out += u"\\t"; break;
      default: {
        bool lone = (isHigh(c) && !(i + 1 < s.size() && isLow(s[i + 1]))) || (isLow(c) && !(i > 0 && isHigh(s[i - 1])));
        if (c < 0x20 || lone) {
          out += u"\\u";
          out.push_back(hex[(c >> 12) & 15]);
          out.push_back(hex[(c >> 8) & 15]);
          out.push_back(hex[(c >> 4) & 15]);
          out.push_back(hex[c & 15]);
        } else {
          out.push_back(c);
        }
      }
    }
  }
  out.push_back(u'"');
}
inline void jsonWrite(Str& out, const Str& s) { jsonQuote(out, s); }
inline void jsonWrite(Str& out, double v) { out += std::isfinite(v) ? numberToString(v) : Str(u"null"); }
inline void jsonWrite(Str& out, bool b) { out += b ? u"true" : u"false"; }
// A Map or Set has no enumerable properties: JSON.stringify prints {} (the compiler rejects it
// where it is stringified directly; objects holding one still need to print).
template <class K, class V>
inline void jsonWrite(Str& out, const Map<K, V>&) { out += u"{}"; }
template <class K>
inline void jsonWrite(Str& out, const Set<K>&) { out += u"{}"; }
template <class T>
inline void jsonWrite(Str& out, const std::shared_ptr<T>& o) {
  jsonWriteObject(out, *o);
}
template <class T>
inline void jsonWrite(Str& out, const Array<T>& a) {
  out.push_back(u'[');
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out.push_back(u',');
    jsonWrite(out, (*a.p)[i]);
  }
  out.push_back(u']');
}
// JSON.stringify(new Float32Array([1, 2])) is {"0":1,"1":2}.
template <class E>
inline void jsonWrite(Str& out, const TypedArray<E>& a) {
  out.push_back(u'{');
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out.push_back(u',');
    out += u"\"" + numberToString(static_cast<double>(i)) + u"\":";
    jsonWrite(out, static_cast<double>((*a.p)[i]));
  }
  out.push_back(u'}');
}
template <class T>
inline Str jsonStringify(const T& v) {
  Str out;
  jsonWrite(out, v);
  return out;
}

}  // namespace tsrt
