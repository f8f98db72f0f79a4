// A bounded word -> ids cache for BPE, in flat arrays: open addressing over slots that hold the
// word's hash, with words and ids in two arenas. Once most words hit the cache, a lookup in
// std::unordered_map (a node, a string, a vector: three cache misses) was a third of encoding.
// Header-only like the rest of the library's dependencies. WordCache is not thread-safe;
// SharedWordCache is the form the models hold.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace triton_studio::tok {

class WordCache {
 public:
  static constexpr size_t kMaxWord = 255;  // longer words are not cached
  static constexpr size_t kMaxIds = 0xFFFF;

  explicit WordCache(size_t capacity) : capacity_(capacity) {}

  static uint64_t Hash(std::string_view word) { return std::hash<std::string_view>()(word) | 1; }  // never 0

  // Appends the cached ids of `word` to `out`; false when absent.
  bool Find(std::string_view word, uint64_t hash, std::vector<uint32_t>& out) const {
    if (slots_.empty()) return false;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.hash == 0) return false;
      if (s.hash == hash && s.word_size == word.size() &&
          std::memcmp(words_.data() + s.word_offset, word.data(), word.size()) == 0) {
        out.insert(out.end(), ids_.begin() + s.ids_offset, ids_.begin() + s.ids_offset + s.ids_size);
        return true;
      }
    }
  }

  // Adds `word` (assumed absent) unless the cache is full or the entry too large.
  void Insert(std::string_view word, uint64_t hash, const uint32_t* ids, size_t n) {
    if (size_ >= capacity_ || word.size() > kMaxWord || n > kMaxIds) return;
    if (words_.size() + word.size() > UINT32_MAX || ids_.size() + n > UINT32_MAX) return;
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    Place(Slot{hash, static_cast<uint32_t>(words_.size()), static_cast<uint32_t>(ids_.size()),
               static_cast<uint16_t>(word.size()), static_cast<uint16_t>(n)});
    words_.append(word);
    ids_.insert(ids_.end(), ids, ids + n);
    ++size_;
  }

 private:
  struct Slot {
    uint64_t hash;  // 0: empty
    uint32_t word_offset, ids_offset;
    uint16_t word_size, ids_size;
  };

  void Place(const Slot& slot) {
    for (size_t i = slot.hash & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) {
        slots_[i] = slot;
        return;
      }
    }
  }
  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : slots_.size() * 2, Slot{0, 0, 0, 0, 0});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.hash != 0) Place(s);
  }

  size_t capacity_, size_ = 0, mask_ = 0;
  std::vector<Slot> slots_;
  std::string words_;
  std::vector<uint32_t> ids_;
};

// A WordCache shared by the threads that encode with one model (results are identical with or
// without it). try_lock keeps concurrent Encode calls from ever waiting on each other: a busy
// cache is just skipped.
class SharedWordCache {
 public:
  explicit SharedWordCache(size_t capacity) : cache_(capacity) {}
  bool Find(std::string_view word, uint64_t hash, std::vector<uint32_t>& out) const {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    return lock.owns_lock() && cache_.Find(word, hash, out);
  }
  void Insert(std::string_view word, uint64_t hash, const uint32_t* ids, size_t n) const {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    if (lock.owns_lock()) cache_.Insert(word, hash, ids, n);
  }

 private:
  mutable std::mutex mutex_;
  mutable WordCache cache_;
};

}  // namespace triton_studio::tok
