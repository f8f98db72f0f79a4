// Map and Set: insertion order, SameValueZero keys, live iteration (builtins/collections.ts).

#pragma once

#include "triton_studio/ts_typed_array.h"

namespace tsrt {

// Map and Set: insertion order, SameValueZero keys (NaN equals NaN, -0 is +0), entries deleted
// while iterating are skipped and entries added are visited, as in JS.

template <class K>
struct KeyHash {
  size_t operator()(const K& k) const {
    if constexpr (std::is_same_v<K, double>) {
      if (std::isnan(k)) return 0x7ff8;
      double z = k == 0 ? 0.0 : k;
      uint64_t b;
      std::memcpy(&b, &z, 8);
      return std::hash<uint64_t>()(b);
    } else {
      return std::hash<K>()(k);
    }
  }
};
template <class K>
struct KeyEq {
  bool operator()(const K& a, const K& b) const { return sameValueZero(a, b); }
};
template <class K>
inline K normalizeKey(K k) {
  if constexpr (std::is_same_v<K, double>) {
    if (k == 0) return 0.0;
  }
  return k;
}

// Entries in insertion order (a removed one leaves an empty slot, so iterators stay valid) and
// an index from key to slot.
template <class K, class V>
struct MapData {
  Vec<std::optional<std::pair<K, V>>> entries;
  std::unordered_map<K, size_t, KeyHash<K>, KeyEq<K>, Counted<std::pair<const K, size_t>>> index;
  bool remove(const K& k) {
    auto it = index.find(k);
    if (it == index.end()) return false;
    entries[it->second].reset();
    index.erase(it);
    return true;
  }
  void clear() {
    for (auto& e : entries) e.reset();
    index.clear();
  }
};

template <class K, class V>
struct Map {
  std::shared_ptr<MapData<K, V>> p = makeShared<MapData<K, V>>();
  double size() const { return static_cast<double>(p->index.size()); }
  bool has(const K& k) const { return p->index.count(k) > 0; }
  std::optional<V> get(const K& k) const {
    auto it = p->index.find(k);
    if (it == p->index.end()) return std::nullopt;
    return p->entries[it->second]->second;
  }
  Map set(const K& key, V v) const {
    K k = normalizeKey(key);
    auto it = p->index.find(k);
    if (it != p->index.end()) {
      p->entries[it->second]->second = std::move(v);
    } else {
      p->index.emplace(k, p->entries.size());
      p->entries.emplace_back(std::make_pair(k, std::move(v)));
    }
    return *this;
  }
  bool remove(const K& k) const { return p->remove(k); }
  void clear() const { p->clear(); }
  bool operator==(const Map& o) const { return p == o.p; }
  bool operator!=(const Map& o) const { return p != o.p; }
};

template <class K>
struct Set {
  std::shared_ptr<MapData<K, bool>> p = makeShared<MapData<K, bool>>();
  Set() = default;
  explicit Set(const Array<K>& items) {
    for (const K& k : *items.p) add(k);
  }
  double size() const { return static_cast<double>(p->index.size()); }
  bool has(const K& k) const { return p->index.count(k) > 0; }
  Set add(const K& key) const {
    K k = normalizeKey(key);
    if (!p->index.count(k)) {
      p->index.emplace(k, p->entries.size());
      p->entries.emplace_back(std::make_pair(k, true));
    }
    return *this;
  }
  bool remove(const K& k) const { return p->remove(k); }
  void clear() const { p->clear(); }
  bool operator==(const Set& o) const { return p == o.p; }
  bool operator!=(const Set& o) const { return p != o.p; }
};

template <class K, class V>
inline Array<K> mapKeys(const Map<K, V>& m) {
  Vec<K> out;
  for (auto& e : m.p->entries)
    if (e) out.push_back(e->first);
  return Array<K>(std::move(out));
}
template <class K, class V>
inline Array<V> mapValues(const Map<K, V>& m) {
  Vec<V> out;
  for (auto& e : m.p->entries)
    if (e) out.push_back(e->second);
  return Array<V>(std::move(out));
}
template <class K>
inline Array<K> setValues(const Set<K>& s) {
  Vec<K> out;
  for (auto& e : s.p->entries)
    if (e) out.push_back(e->first);
  return Array<K>(std::move(out));
}

}  // namespace tsrt
