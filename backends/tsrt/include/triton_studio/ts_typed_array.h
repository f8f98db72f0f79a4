// Typed arrays (Float32Array, Int32Array…): element stores convert as JavaScript does
// (builtins/typedArray.ts).

#pragma once

#include "triton_studio/ts_array.h"

namespace tsrt {

// Typed arrays: element stores convert as JS does (fround, ToInt32 and friends); reads give
// doubles; writes outside the array are ignored, as in JS.

template <class E>
inline E toElement(double v) {
  if constexpr (std::is_floating_point_v<E>) {
    return static_cast<E>(v);
  } else {
    return static_cast<E>(toUint32(v));  // modular, then truncated to the element width
  }
}

template <class E>
struct TypedArray {
  std::shared_ptr<Vec<E>> p;
  TypedArray() : p(makeShared<Vec<E>>()) {}
  explicit TypedArray(double n) {
    double len = toIntegerOrInfinity(n);
    if (len < 0 || len > 4294967295.0) throwRangeError(u"Invalid typed array length: " + numberToString(n));
    p = makeShared<Vec<E>>(static_cast<size_t>(len));
  }
  explicit TypedArray(const Array<double>& a) : p(makeShared<Vec<E>>()) {
    p->reserve(a.size());
    for (double v : *a.p) p->push_back(toElement<E>(v));
  }
  explicit TypedArray(Vec<E> v) : p(makeShared<Vec<E>>(std::move(v))) {}
  size_t size() const { return p->size(); }
  double length() const { return static_cast<double>(p->size()); }
  double get(double i) const {
    if (!(i >= 0 && i < static_cast<double>(p->size()) && i == std::trunc(i)))
      throwUndefined(u"typed array index " + numberToString(i) + u" is outside the array");
    return static_cast<double>((*p)[static_cast<size_t>(i)]);
  }
  double set(double i, double v) const {
    if (i >= 0 && i < static_cast<double>(p->size()) && i == std::trunc(i)) (*p)[static_cast<size_t>(i)] = toElement<E>(v);
    return v;
  }
  bool operator==(const TypedArray& o) const { return p == o.p; }
  bool operator!=(const TypedArray& o) const { return p != o.p; }
};

template <class E>
inline Array<double> toArray(const TypedArray<E>& a) {
  Vec<double> v(a.p->begin(), a.p->end());
  return Array<double>(std::move(v));
}
template <class E>
struct IsSequence<TypedArray<E>> : std::true_type {};
template <class E>
inline E storeElement(const TypedArray<E>&, double v) { return toElement<E>(v); }
template <class E>
inline double indexOf(const TypedArray<E>& a, double x) {
  for (size_t i = 0; i < a.size(); ++i)
    if (static_cast<double>((*a.p)[i]) == x) return static_cast<double>(i);
  return -1;
}
template <class E>
inline bool includes(const TypedArray<E>& a, double x) {
  for (E y : *a.p)
    if (sameValueZero(static_cast<double>(y), x)) return true;
  return false;
}
template <class E>
inline Str join(const TypedArray<E>& a, const Str& sep = u",") {
  Str out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i) out += sep;
    out += numberToString(static_cast<double>((*a.p)[i]));
  }
  return out;
}

}  // namespace tsrt
