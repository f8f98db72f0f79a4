// A bounded word -> ids cache for BPE, in flat arrays: open addressing over slots that hold the
// word's hash, a short word and its ids inline, longer ones in two arenas. Once most words hit the
// cache, a lookup in std::unordered_map (a node, a string, a vector: three cache misses) was a
// third of encoding.
// Header-only like the rest of the library's dependencies. WordCache is not thread-safe;
// SharedWordCache is the form the models hold.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace triton_studio::tok {

class WordCache {
 public:
  static constexpr size_t kMaxWord = 4095;  // longer words are not cached
  static constexpr size_t kMaxIds = 0xFFFF;
  // Bytes of words and ids kept out of line, at most: a bound on memory that a few long words
  // cannot push past (100,000 short words take about 1 MB of it).
  static constexpr size_t kMaxArenaBytes = 16 << 20;

  explicit WordCache(size_t capacity) : capacity_(capacity) {}

  // Never 0. Words are short (a few bytes), so this reads them in at most two overlapping 8-byte
  // or 4-byte loads per 16 bytes instead of std::hash's byte-general loop (7% of a warm GPT-2
  // encode went to std::_Hash_bytes).
  static uint64_t Hash(std::string_view word) {
    const char* p = word.data();
    size_t n = word.size();
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
    for (; n > 16; n -= 16, p += 16) h = Mix(h, Load64(p), Load64(p + 8));
    if (n >= 8) {
      h = Mix(h, Load64(p), Load64(p + n - 8));
    } else if (n >= 4) {
      h = Mix(h, Load32(p), Load32(p + n - 4));
    } else if (n > 0) {
      const auto b = [p](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(p[i])); };
      h = Mix(h, b(0) | (b(n / 2) << 8) | (b(n - 1) << 16), 0);
    }
    return h | 1;
  }

  // Starts loading the slot where a lookup of `hash` begins: callers that know their next words
  // (a span's pieces are all known before the first lookup) hide the cache miss of each lookup
  // behind the work on the ones before it. Half of a warm Llama-3.1 lookup's time was that miss.
  void Prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }

  // Appends the cached ids of `word` to `out`; false when absent.
  bool Find(std::string_view word, uint64_t hash, std::vector<uint32_t>& out) const {
    if (word.size() <= 2 && FindShort(word, out)) return true;
    if (slots_.empty()) return false;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.hash == 0) return false;
      if (s.hash == hash && s.word_size == word.size() && Equal(s.Word(words_), word)) {
        const uint32_t* ids = s.Ids(ids_);
        if (s.ids_size == 1) {
          out.push_back(ids[0]);  // most words are one token
        } else if (s.ids_size <= 8) {
          // A few tokens: push_back beats the general range insert and its memmove.
          for (uint16_t k = 0; k < s.ids_size; ++k) out.push_back(ids[k]);
        } else {
          out.insert(out.end(), ids, ids + s.ids_size);
        }
        return true;
      }
    }
  }

  // Adds `word` (assumed absent) unless the cache is full or the entry too large.
  void Insert(std::string_view word, uint64_t hash, const uint32_t* ids, size_t n) {
    if (word.size() <= 2 && n >= 1 && n <= 2) return InsertShort(word, ids, n);
    if (size_ >= capacity_ || word.size() > kMaxWord || n > kMaxIds) return;
    const size_t word_out = word.size() > Slot::kInlineWord ? word.size() : 0;
    const size_t ids_out = n > Slot::kInlineIds ? n * sizeof(uint32_t) : 0;
    if (words_.size() + word_out + ids_.size() * sizeof(uint32_t) + ids_out > kMaxArenaBytes) return;
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    Slot slot{};
    slot.hash = hash;
    slot.word_size = static_cast<uint16_t>(word.size());
    slot.ids_size = static_cast<uint16_t>(n);
    if (word_out == 0) {
      std::memcpy(slot.word.bytes, word.data(), word.size());
    } else {
      slot.word.offset = static_cast<uint32_t>(words_.size());
      words_.append(word);
    }
    if (ids_out == 0) {
      std::memcpy(slot.ids.inline_ids, ids, n * sizeof(uint32_t));
    } else {
      slot.ids.offset = static_cast<uint32_t>(ids_.size());
      ids_.insert(ids_.end(), ids, ids + n);
    }
    Place(slot);
    ++size_;
  }

 private:
  static uint64_t Load64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint64_t Load32(const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static uint64_t Mix(uint64_t h, uint64_t a, uint64_t b) {
    // One round of a multiply-xorshift mix (as in wyhash/murmur finalizers): enough spread for
    // an open-addressing table whose keys are also compared in full.
    const unsigned __int128 m = static_cast<unsigned __int128>(h ^ a ^ 0xA0761D6478BD642FULL) *
                                (b ^ 0xE7037ED1A0B428DBULL);
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  }
  // memcmp of a short word without the library call: 8-byte (or 4-byte) loads, the last one
  // overlapping the one before it.
  static bool Equal(const char* stored, std::string_view word) {
    const char* p = word.data();
    const size_t n = word.size();
    if (n >= 8) {
      for (size_t i = 0; i + 8 < n; i += 8)
        if (Load64(p + i) != Load64(stored + i)) return false;
      return Load64(p + n - 8) == Load64(stored + n - 8);
    }
    if (n >= 4) return Load32(p) == Load32(stored) && Load32(p + n - 4) == Load32(stored + n - 4);
    for (size_t i = 0; i < n; ++i)
      if (p[i] != stored[i]) return false;
    return true;
  }

  // One cache line holds two slots, and a typical word (a few bytes, one or two ids) lives in its
  // slot: a hit touches one line instead of three (slot, word arena, ids arena). With ~85,000
  // words the table is megabytes, so lookups of the rarer words miss the cache, and each line not
  // touched is one fewer miss.
  struct alignas(32) Slot {
    static constexpr size_t kInlineWord = 12, kInlineIds = 2;
    uint64_t hash;  // 0: empty
    uint16_t word_size, ids_size;
    union {
      char bytes[kInlineWord];
      uint32_t offset;  // into words_, when word_size > kInlineWord
    } word;
    union {
      uint32_t inline_ids[kInlineIds];
      uint32_t offset;  // into ids_, when ids_size > kInlineIds
    } ids;
    const char* Word(const std::string& arena) const {
      return word_size <= kInlineWord ? word.bytes : arena.data() + word.offset;
    }
    const uint32_t* Ids(const std::vector<uint32_t>& arena) const {
      return ids_size <= kInlineIds ? ids.inline_ids : arena.data() + ids.offset;
    }
  };
  static_assert(sizeof(Slot) == 32);

  void Place(const Slot& slot) {
    for (size_t i = slot.hash & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) {
        slots_[i] = slot;
        return;
      }
    }
  }
  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : slots_.size() * 2, Slot{});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.hash != 0) Place(s);
  }

  // Words of one or two bytes (a third to a half of all pieces: " ", ".", " a", "\n\n") with one
  // or two ids live in a table indexed by their bytes: no probe, no compare, and 0.6 MB that
  // stays in cache.
  static size_t ShortIndex(std::string_view word) {
    const auto b = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(word[i])); };
    return word.size() == 1 ? b(0) : 256 + (b(0) | (b(1) << 8));
  }
  bool FindShort(std::string_view word, std::vector<uint32_t>& out) const {
    if (word.empty() || short_count_.empty()) return false;
    const size_t i = ShortIndex(word);
    const uint8_t n = short_count_[i];
    if (n == 0) return false;
    out.push_back(short_ids_[i][0]);
    if (n == 2) out.push_back(short_ids_[i][1]);
    return true;
  }
  void InsertShort(std::string_view word, const uint32_t* ids, size_t n) {
    if (short_count_.empty()) {
      short_count_.assign(256 + 65536, 0);
      short_ids_.resize(256 + 65536);
    }
    const size_t i = ShortIndex(word);
    short_ids_[i] = {ids[0], n == 2 ? ids[1] : 0};
    short_count_[i] = static_cast<uint8_t>(n);
  }

  size_t capacity_, size_ = 0, mask_ = 0;
  std::vector<uint8_t> short_count_;  // 0: absent
  std::vector<std::array<uint32_t, 2>> short_ids_;
  std::vector<Slot> slots_;
  std::string words_;
  std::vector<uint32_t> ids_;
};

// A WordCache shared by the threads that encode with one model (results are identical with or
// without it). A caller takes it for a whole pre-tokenized span (Session), not per word: a
// pthread mutex try_lock/unlock pair per word was 8% of a warm GPT-2 encode. The lock is only
// ever tried, so concurrent Encode calls never wait on each other: a caller that finds the cache
// busy encodes its span without it.
class SharedWordCache {
 public:
  explicit SharedWordCache(size_t capacity) : cache_(capacity) {}

  class Session {
   public:
    explicit Session(const SharedWordCache& shared)
        : shared_(shared), owned_(!shared.busy_.exchange(true, std::memory_order_acquire)) {}
    ~Session() {
      if (owned_) shared_.busy_.store(false, std::memory_order_release);
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    // The cache, or nullptr when another thread holds it.
    WordCache* cache() const { return owned_ ? &shared_.cache_ : nullptr; }

   private:
    const SharedWordCache& shared_;
    const bool owned_;
  };

 private:
  mutable std::atomic<bool> busy_{false};
  mutable WordCache cache_;
};

// Appends the ids of `word`: from `cache` (nullptr: none) when it has them, else by running
// `compute` (which appends them to `out`) and remembering its result.
template <typename Compute>
inline void CachedTokenize(WordCache* cache, std::string_view word, uint64_t hash, std::vector<uint32_t>& out,
                           Compute&& compute) {
  if (word.size() > WordCache::kMaxWord) return compute();
  if (cache->Find(word, hash, out)) return;
  const size_t first = out.size();
  compute();
  cache->Insert(word, hash, out.data() + first, out.size() - first);
}
template <typename Compute>
inline void CachedTokenize(WordCache* cache, std::string_view word, std::vector<uint32_t>& out, Compute&& compute) {
  if (cache == nullptr) return compute();
  CachedTokenize(cache, word, WordCache::Hash(word), out, compute);
}

}  // namespace triton_studio::tok
