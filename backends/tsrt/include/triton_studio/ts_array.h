// Arrays as JavaScript has them: reference types (a shared vector), so aliasing behaves the same;
// their methods, and slice/fill written once for arrays and typed arrays (builtins/array.ts).

#pragma once

#include "triton_studio/ts_string.h"

namespace tsrt {

// Arrays: reference types as in JS (a shared vector), so aliasing behaves the same.

template <class T>
struct Array {
  std::shared_ptr<Vec<T>> p;
  Array() : p(makeShared<Vec<T>>()) {}
  Array(std::initializer_list<T> items) : p(makeShared<Vec<T>>(items)) {}
  explicit Array(Vec<T> items) : p(makeShared<Vec<T>>(std::move(items))) {}
  size_t size() const { return p->size(); }
  double length() const { return static_cast<double>(p->size()); }
  Vec<T>& v() const { return *p; }
  T& at(double i) const {
    if (!(i >= 0 && i < static_cast<double>(p->size()) && i == std::trunc(i)))
      throwUndefined(u"array index " + numberToString(i) + u" is outside the array");
    return (*p)[static_cast<size_t>(i)];
  }
  // a[i] = x: writing at the length appends (JS grows the array); further out would leave holes.
  T& put(double i) const {
    if (i == static_cast<double>(p->size())) {
      p->emplace_back();
      return p->back();
    }
    return at(i);
  }
  bool operator==(const Array& o) const { return p == o.p; }
  bool operator!=(const Array& o) const { return p != o.p; }
};

// SameValueZero / strict equality helpers (NaN: includes finds it, indexOf does not).
template <class T>
inline bool strictEquals(const T& a, const T& b) { return a == b; }
template <class T>
inline bool sameValueZero(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, double>) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return a == b;
}

template <class T>
inline double push(const Array<T>& a, Elem<T> x) {
  a.p->push_back(std::move(x));
  return a.length();
}
template <class T>
inline std::optional<T> pop(const Array<T>& a) {
  if (a.p->empty()) return std::nullopt;
  T x = std::move(a.p->back());
  a.p->pop_back();
  return x;
}
template <class T>
inline std::optional<T> shift(const Array<T>& a) {
  if (a.p->empty()) return std::nullopt;
  T x = std::move(a.p->front());
  a.p->erase(a.p->begin());
  return x;
}
template <class T>
inline double unshift(const Array<T>& a, Elem<T> x) {
  a.p->insert(a.p->begin(), std::move(x));
  return a.length();
}
// slice and fill, written once for both reference sequences, Array<T> and TypedArray<E>: a
// sequence holds its shared vector in `p`, is built from a vector, and stores an element through
// `storeElement` (an array as it is; a typed array converted as JS converts, ts_typed_array.h).
template <class Seq>
struct IsSequence : std::false_type {};
template <class T>
struct IsSequence<Array<T>> : std::true_type {};
template <class Seq>
using SequenceOnly = std::enable_if_t<IsSequence<Seq>::value, int>;
template <class T>
inline T storeElement(const Array<T>&, Elem<T> x) { return x; }

template <class Seq, SequenceOnly<Seq> = 0>
inline Seq slice(const Seq& a, double start = 0) {
  size_t s = relIndex(start, a.size());
  return Seq(std::remove_reference_t<decltype(*a.p)>(a.p->begin() + s, a.p->end()));
}
template <class Seq, SequenceOnly<Seq> = 0>
inline Seq slice(const Seq& a, double start, double end) {
  size_t s = relIndex(start, a.size()), e = relIndex(end, a.size());
  if (e < s) e = s;
  return Seq(std::remove_reference_t<decltype(*a.p)>(a.p->begin() + s, a.p->begin() + e));
}
template <class Seq, class X, SequenceOnly<Seq> = 0>
inline Seq fill(const Seq& a, const X& x) {
  std::fill(a.p->begin(), a.p->end(), storeElement(a, x));
  return a;
}
template <class T>
inline double indexOf(const Array<T>& a, const Elem<T>& x) {
  for (size_t i = 0; i < a.size(); ++i)
    if (strictEquals((*a.p)[i], x)) return static_cast<double>(i);
  return -1;
}
template <class T>
inline bool includes(const Array<T>& a, const Elem<T>& x) {
  for (const T& y : *a.p)
    if (sameValueZero(y, x)) return true;
  return false;
}
template <class T>
inline Array<T> concat(const Array<T>& a, const Array<T>& b) {
  Vec<T> v(*a.p);
  v.insert(v.end(), b.p->begin(), b.p->end());
  return Array<T>(std::move(v));
}
template <class T>
inline Array<T> reverse(const Array<T>& a) {
  std::reverse(a.p->begin(), a.p->end());
  return a;
}
template <class T, class F>
inline auto map(const Array<T>& a, F f) {
  using R = decltype(f(std::declval<T&>(), 0.0));
  Vec<R> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) out.push_back(f((*a.p)[i], static_cast<double>(i)));
  return Array<R>(std::move(out));
}
template <class T, class F>
inline Array<T> filter(const Array<T>& a, F f) {
  Vec<T> out;
  for (size_t i = 0; i < a.size(); ++i) {
    T x = (*a.p)[i];
    if (f(x, static_cast<double>(i))) out.push_back(std::move(x));
  }
  return Array<T>(std::move(out));
}
template <class T, class F>
inline void forEach(const Array<T>& a, F f) {
  size_t n = a.size();  // forEach visits the original length
  for (size_t i = 0; i < n && i < a.size(); ++i) f((*a.p)[i], static_cast<double>(i));
}
template <class T, class F>
inline bool some(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (f((*a.p)[i], static_cast<double>(i))) return true;
  return false;
}
template <class T, class F>
inline bool every(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (!f((*a.p)[i], static_cast<double>(i))) return false;
  return true;
}
template <class T, class F>
inline std::optional<T> find(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (f((*a.p)[i], static_cast<double>(i))) return (*a.p)[i];
  return std::nullopt;
}
template <class T, class F>
inline double findIndex(const Array<T>& a, F f) {
  for (size_t i = 0; i < a.size(); ++i)
    if (f((*a.p)[i], static_cast<double>(i))) return static_cast<double>(i);
  return -1;
}
template <class T, class U, class F>
inline U reduce(const Array<T>& a, F f, U init) {
  U acc = std::move(init);
  for (size_t i = 0; i < a.size(); ++i) acc = f(acc, (*a.p)[i], static_cast<double>(i));
  return acc;
}
template <class T, class F>
inline T reduce1(const Array<T>& a, F f) {
  if (a.p->empty()) throwTypeError(u"Reduce of empty array with no initial value");
  T acc = (*a.p)[0];
  for (size_t i = 1; i < a.size(); ++i) acc = f(acc, (*a.p)[i], static_cast<double>(i));
  return acc;
}
// sort(cmp): stable, like V8's TimSort; NaN from the comparator counts as 0 (equal).
template <class T, class F>
inline Array<T> sort(const Array<T>& a, F cmp) {
  std::stable_sort(a.p->begin(), a.p->end(), [&](const T& x, const T& y) { return cmp(x, y) < 0; });
  return a;
}
template <class T>
Str toStr(const Array<T>& a);
template <class T>
inline Str join(const Array<T>& a, const Str& sep = u",") {
  Str out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out += sep;
    out += toStr((*a.p)[i]);
  }
  return out;
}
// sort() without a comparator orders by the elements' strings (numbers too, as JS does).
template <class T>
inline Array<T> sortDefault(const Array<T>& a) {
  std::stable_sort(a.p->begin(), a.p->end(), [](const T& x, const T& y) { return toStr(x) < toStr(y); });
  return a;
}
template <class T>
Str toStr(const Array<T>& a) { return join(a, u","); }

inline Array<Str> split(const Str& s, const Str& sep) {
  Vec<Str> out;
  if (sep.empty()) {
    for (char16_t c : s) out.emplace_back(1, c);
    return Array<Str>(std::move(out));
  }
  size_t start = 0, p;
  while ((p = s.find(sep, start)) != Str::npos) {
    out.push_back(s.substr(start, p - start));
    start = p + sep.size();
  }
  out.push_back(s.substr(start));
  return Array<Str>(std::move(out));
}
inline Array<Str> split(const Str& s, const Str& sep, double limit) {
  uint32_t lim = toUint32(limit);
  Array<Str> all = split(s, sep);
  if (all.size() > lim) all.p->resize(lim);
  return all;
}

// for (const ch of s): code points, lone surrogates alone.
inline Array<Str> codePoints(const Str& s) {
  Vec<Str> out;
  for (size_t i = 0; i < s.size();) {
    size_t units;
    codePointAt(s, i, &units);
    out.push_back(s.substr(i, units));
    i += units;
  }
  return Array<Str>(std::move(out));
}

}  // namespace tsrt
