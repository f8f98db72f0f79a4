// A bounded word -> ids cache for BPE, in flat arrays: open addressing over slots keyed by the
// word's first 16 bytes, with up to two ids inline; longer words and id lists in two arenas. Once
// most words hit the cache, a lookup in std::unordered_map (a node, a string, a vector: three
// cache misses) was a third of encoding.
// Header-only like the rest of the library's dependencies. WordCache is not thread-safe;
// SharedWordCache is the form the models hold.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "past_end_reads.h"

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#elif defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
#endif

namespace triton_studio::tok {

namespace word_cache_detail {
// kKeyMask[n]: the bytes of a word of n <= 16 bytes in its two 8-byte halves, side by side so that
// one 16-byte load masks a key.
constexpr uint64_t LowMask(size_t n) { return n >= 8 ? ~0ULL : (1ULL << (8 * n)) - 1; }
constexpr uint64_t HighMask(size_t n) { return n <= 8 ? 0 : LowMask(n - 8); }
struct alignas(16) KeyMask {
  uint64_t lo, hi;
};
constexpr std::array<KeyMask, 17> KeyMasks() {
  std::array<KeyMask, 17> m{};
  for (size_t n = 0; n <= 16; ++n) m[n] = {LowMask(n), HighMask(n)};
  return m;
}
inline constexpr std::array<KeyMask, 17> kKeyMask = KeyMasks();
}  // namespace word_cache_detail

class WordCache {
 public:
  static constexpr size_t kMaxWord = 4095;  // longer words are not cached
  static constexpr size_t kMaxIds = 0xFFFF;
  // Bytes of words and ids kept out of line, at most: a bound on memory that a few long words
  // cannot push past (words of up to 16 bytes with up to 2 ids take none of it).
  static constexpr size_t kMaxArenaBytes = 16 << 20;
  static constexpr size_t kKeyBytes = 16;
  static constexpr size_t kFirstSlots = 1024;
  static constexpr size_t kAhead = 8;  // TokenizeAll prefetches this many words ahead
  static constexpr size_t kSlack = 8;   // TokenizeAll's room beyond two ids a word
  static constexpr size_t kFewIds = 8;  // up to this many ids are copied by a loop, more by memcpy
  // A word lies at most this many slots past the slot its hash picks; one that would lie further
  // is not cached. Words whose hashes collide (text written to collide, say) then cost a bounded
  // search each, instead of a search through all of them: the cache is shared by every request.
  // At the table's fullest (3/4) a word lies 2.5 slots on on average, and almost never 64.
  static constexpr size_t kMaxProbes = 64;

  // The table starts at its first size (32 KiB), so a lookup never tests for an empty one.
  explicit WordCache(size_t capacity) : capacity_(capacity), mask_(kFirstSlots - 1), slots_(kFirstSlots) {}

  // A word's first 16 bytes, zero-padded, and a hash of the whole word. Most words are
  // shorter than 16 bytes: they are read, hashed and compared without a branch on their length.
  // Branches on the length, which varies word to word, were over half of the lookups'
  // mispredictions (callgrind's branch simulation, warm GPT-2 pass: 1.70 M, now 0.85 M).
  // `size`: the word's; `hash` picks its first slot.
  struct Key {
    uint64_t lo, hi;
    uint32_t hash, size;
  };

  static Key KeyOf(std::string_view word) {
    alignas(16) char padded[kKeyBytes] = {};
    const char* p = word.data();
    if (word.size() < kKeyBytes) {
      std::memcpy(padded, p, word.size());
      p = padded;
    }
    Key k;
    // A word longer than kMaxWord matches no slot: none has its size (and every input is under
    // 2 GiB, so it fits).
    KeyAt(p, static_cast<uint32_t>(word.size()), k);
    return k;
  }

  // Appends the cached ids of `word` to `out`; false when absent.
  bool Find(std::string_view word, const Key& key, std::vector<uint32_t>& out) const {
    if (word.empty()) return false;
    const Slot* s = Probe(slots_.data(), mask_, key, word.data());
    if (s == nullptr) return false;
    if (s->ids_size <= Slot::kInlineIds) {
      out.push_back(s->ids[0]);  // most words are one token
      if (s->ids_size == 2) out.push_back(s->ids[1]);
      return true;
    }
    // A few tokens: push_back beats the general range insert and its memmove.
    const uint32_t* ids = ids_.data() + s->ids[0];
    if (s->ids_size <= kFewIds) {
      for (uint16_t m = 0; m < s->ids_size; ++m) out.push_back(ids[m]);
    } else {
      out.insert(out.end(), ids, ids + s->ids_size);
    }
    return true;
  }

  using Range = std::pair<uint32_t, uint32_t>;  // [begin, end) byte offsets in a span's text
  // The words text[begin, end) of ranges[0, count): one pre-tokenized span.
  struct Span {
    std::string_view text;
    const Range* ranges;
    size_t count;
  };

  // Appends the ids of the words text[begin, end) of `ranges`, in order, to `out`: the cached
  // ones where the cache has them, else `compute(word, ids)`'s, which appends them to `ids` (empty
  // on entry) and are then remembered. Empty words have none.
  template <typename Compute>
  void TokenizeAll(std::string_view text, const std::vector<Range>& ranges, std::vector<uint32_t>& out,
                   Compute&& compute) {
    const Span span{text, ranges.data(), ranges.size()};
    size_t end;
    TokenizeSpans(&span, 1, out, &end, compute);
  }

  // TokenizeAll of each span in turn, all in one pass; ends[s]: out.size() after span s. A batch of
  // texts goes through here at once, so that their words' lookups prefetch across texts (a short
  // text's first lookups had nothing before them to overlap with) and the fixed costs below are
  // paid once.
  // This is the loop a warm encode of a GPT-2-style vocabulary spends most of its time in, so it
  // is written for that: every key first, then the lookups, each prefetching the slot of the word
  // kAhead on (the lookups are independent, so their cache misses overlap instead of queueing:
  // half a warm Llama-3.1 lookup was that miss). A word of up to 16 bytes found with one or two ids
  // (most words) is two stores into a buffer with room for two ids a word, a few ids a short
  // loop; anything else goes out of line to SlowWord.
  template <typename Compute>
  [[gnu::noinline]] void TokenizeSpans(const Span* spans, size_t span_count, std::vector<uint32_t>& out, size_t* ends,
                                       Compute&& compute) {
    size_t n = 0, bytes = 0;
    for (size_t s = 0; s < span_count; ++s) n += spans[s].count, bytes += spans[s].text.size();
    thread_local std::vector<Key> keys;
    // Grown, never shrunk: no zero-filling per call. The kAhead keys past the last word are
    // earlier calls' (or zeros): prefetching their slots costs a load, never a fault.
    if (keys.size() < n + kAhead) keys.resize(n + kAhead);
    Key* const k = keys.data();
    for (size_t s = 0, at = 0; s < span_count; at += spans[s].count, ++s) KeyAll(spans[s], k + at);

    // The ids go to a per-thread buffer, two a word and kSlack ahead, and to `out` in one copy:
    // growing `out` per span zero-filled it, 2% of a warm GPT-2 encode. Everything the loop uses
    // is a local, so that it stays in registers: the buffer's base is reloaded only after
    // SlowWord, which may grow it, and the table only after a miss, which may grow it.
    thread_local std::vector<uint32_t> buffer;
    // Room for more: a span that is one long word (no pre-tokenizer) has about a token per 4 bytes.
    const size_t room = 2 * n + bytes / 2 + kSlack;
    if (buffer.size() < room) buffer.resize(room);
    uint32_t* base = buffer.data();
    size_t w = 0;  // buffer[0, w) is written
    // Always kAhead: a loop of n's trip count would end in a mispredicted branch per call.
    for (size_t i = 0; i < kAhead; ++i) __builtin_prefetch(&slots_[k[i].hash & mask_]);
    const Slot* slots = slots_.data();
    size_t mask = mask_;
    const size_t first_id = out.size();
    size_t i = 0;  // the word, counted over all spans
    for (size_t s = 0; s < span_count; ++s) {
      const char* const t = spans[s].text.data();
      const Range* const r = spans[s].ranges;
      const size_t span_first = i, span_end = i + spans[s].count;
      for (; i < span_end; ++i) {
        __builtin_prefetch(&slots[k[i + kAhead].hash & mask]);
        // In place: a copy was stored to the stack every word, for SlowWord's reference. `keys`
        // stays put while SlowWord runs, since `compute` merges one word and never encodes
        // through a cache.
        const Key& key = k[i];
        const Slot* slot;
        if (key.size <= kKeyBytes) [[likely]] {
          slot = ProbeShort(slots, mask, key);
        } else {
          slot = Probe(slots, mask, key, t + r[i - span_first].first);  // the key is its start: compare the rest
        }
        if (slot != nullptr) [[likely]] {
          const size_t count = slot->ids_size;
          if (count <= Slot::kInlineIds) {
            base[w] = slot->ids[0];
            base[w + 1] = slot->ids[1];  // may be stale: overwritten by the next word or cut
            w += count;
            continue;
          }
          // More ids (runs of spaces in code, rare words, a whole text with no pre-tokenizer), when
          // they fit the room: a few by a short loop, more by memcpy.
          if (w + count + 2 * (n - i - 1) + kSlack <= buffer.size()) {
            const uint32_t* ids = ids_.data() + slot->ids[0];
            if (count <= kFewIds) {
              for (size_t m = 0; m < count; ++m) base[w + m] = ids[m];
            } else {
              std::memcpy(base + w, ids, count * sizeof(uint32_t));
            }
            w += count;
            continue;
          }
        }
        w = SlowWord(std::string_view(t + r[i - span_first].first, key.size), key, slot, n - i - 1, buffer, w,
                     compute);
        base = buffer.data();
        slots = slots_.data();  // an insert may have grown the table
        mask = mask_;
      }
      ends[s] = first_id + w;
    }
    out.insert(out.end(), base, base + w);
    if (keys.capacity() > (1 << 16)) keys = {};  // a huge input's buffers are not kept
    if (buffer.capacity() > (1 << 16)) buffer = {};
  }

  size_t size() const { return size_; }  // words cached

  // Adds `word` (assumed absent) unless the cache is full or the entry too large.
  void Insert(std::string_view word, const Key& key, const uint32_t* ids, size_t n) {
    if (size_ >= capacity_ || word.empty() || word.size() > kMaxWord || n == 0 || n > kMaxIds) return;
    const size_t word_out = word.size() > kKeyBytes ? word.size() - kKeyBytes : 0;
    const size_t ids_out = n > Slot::kInlineIds ? n * sizeof(uint32_t) : 0;
    if (words_.size() + word_out + ids_.size() * sizeof(uint32_t) + ids_out > kMaxArenaBytes) return;
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    Slot* const free = FreeSlot(key.hash);
    if (free == nullptr) return;
    Slot slot{};
    slot.lo = key.lo;
    slot.hi = key.hi;
    slot.word_size = static_cast<uint16_t>(word.size());
    slot.ids_size = static_cast<uint16_t>(n);
    if (word_out != 0) {
      slot.word_offset = static_cast<uint32_t>(words_.size());
      words_.append(word.substr(kKeyBytes));
    }
    if (ids_out == 0) {
      std::memcpy(slot.ids, ids, n * sizeof(uint32_t));
    } else {
      slot.ids[0] = static_cast<uint32_t>(ids_.size());
      ids_.insert(ids_.end(), ids, ids + n);
    }
    *free = slot;
    ++size_;
  }

 private:
  static uint64_t Load64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint64_t Mix(uint64_t a, uint64_t b) {
    // One round of a multiply-xorshift mix (as in wyhash/murmur finalizers): enough spread for
    // an open-addressing table whose keys are also compared in full.
    const unsigned __int128 m =
        static_cast<unsigned __int128>(a ^ 0xA0761D6478BD642FULL) * (b ^ 0xE7037ED1A0B428DBULL);
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  }
  // The hash of a word from its key and, past 16 bytes, the rest of it (`tail`). Two CRC32C
  // steps where the CPU has them (x86-64-v2, which the library is built for, and ARMv8.1): a
  // third of the instructions of the multiply mix, which was a quarter of keying a word. That CRC
  // collisions are easy to write is why a word's search is bounded (kMaxProbes).
  static uint32_t HashOf(uint64_t lo, uint64_t hi, size_t n, const char* tail) {
#if defined(__SSE4_2__)
    const uint64_t h = _mm_crc32_u64(_mm_crc32_u64(n, lo), hi);
#elif defined(__ARM_FEATURE_CRC32)
    const uint64_t h = __crc32cd(__crc32cd(static_cast<uint32_t>(n), lo), hi);
#else
    const uint64_t h = Mix(lo ^ (n * 0xC2B2AE3D27D4EB4FULL), hi);
#endif
    return static_cast<uint32_t>(n > kKeyBytes ? TailHash(h, n - kKeyBytes, tail) : h);
  }
  // Out of line: its loop and buffer would take registers from the keying loops around HashOf.
  [[gnu::noinline]] static uint64_t TailHash(uint64_t h, size_t rest, const char* tail) {
    for (; rest >= 16; rest -= 16, tail += 16) h = Mix(h ^ Load64(tail), Load64(tail + 8));
    char buf[16] = {};
    std::memcpy(buf, tail, rest);
    return Mix(h ^ Load64(buf), Load64(buf + 8));
  }
  // One cache line holds two slots, and a typical word (up to 16 bytes, one or two ids) lives in
  // its slot: a hit touches one line instead of three (slot, word arena, ids arena). With ~85,000
  // words the table is megabytes, so lookups of the rarer words miss the cache, and each line not
  // touched is one fewer miss.
  struct alignas(32) Slot {
    static constexpr size_t kInlineIds = 2;
    uint64_t lo, hi;         // the key: the word's first 16 bytes, zero-padded
    uint16_t word_size;      // 0: empty
    uint16_t ids_size;
    uint32_t word_offset;    // bytes after the first 16, in words_
    uint32_t ids[kInlineIds];  // or ids[0]: the offset in ids_, when ids_size > kInlineIds
  };
  static_assert(sizeof(Slot) == 32);

  // The keys of the span's words, into k[0, span.count). Out of line: a
  // leaf with few live values keeps them in registers (inlined into TokenizeAll's caller, the
  // loop spilled its bounds to the stack).
  [[gnu::noinline]] static void KeyAll(const Span& span, Key* k) {
    const std::string_view text = span.text;
    const char* const t = text.data();
    const Range* const r = span.ranges;
    const size_t n = span.count;
    // Every word is read where it is, by two loads, when the 16 bytes past the text's last byte
    // lie in its page (past_end_reads.h).
    size_t i = 0;
    if (!text.empty() && InOnePage(t + text.size() - 1, kKeyBytes + 1)) {
      for (; i < n; ++i) KeyAt(t + r[i].first, r[i].second - r[i].first, k[i]);
      return;
    }
    // Else a word that starts 16 bytes or more before the text's end (all but the last few, as
    // pieces come in order) is read where it is; the rest from a zero-padded copy of the text's
    // last 16 bytes (or of all of a shorter text), by the same loads. A word that starts in the
    // copy ends there: it has no tail past 16 bytes.
    size_t from = 0;  // where the copy starts, the last start read in place
    alignas(16) char tail[2 * kKeyBytes] = {};
    if (text.size() >= kKeyBytes) {
      from = text.size() - kKeyBytes;
      for (; i < n && r[i].first <= from; ++i) KeyAt(t + r[i].first, r[i].second - r[i].first, k[i]);
      if (i == n) return;
      std::memcpy(tail, t + from, kKeyBytes);  // a copy of fixed size: two moves, no call
    } else {
      std::memcpy(tail, t, text.size());
    }
    for (; i < n; ++i) KeyAt(tail + (r[i].first - from), r[i].second - r[i].first, k[i]);
  }
  // The key of the word of `size` bytes at p, which has 16 bytes readable.
  static void KeyAt(const char* p, uint32_t size, Key& k) {
    const auto& mask = word_cache_detail::kKeyMask[size < kKeyBytes ? size : kKeyBytes];
    const uint64_t lo = Load64(p) & mask.lo, hi = Load64(p + 8) & mask.hi;
    k = Key{lo, hi, HashOf(lo, hi, size, p + kKeyBytes), size};
  }

  // TokenizeAll's other words: found in slot `s` with more ids than fit the room, or not cached
  // yet (s == nullptr: computed and inserted, which may grow the table). Appends their ids to
  // buffer[0, w), leaves room for `words_left` more words, and returns the new w.
  template <typename Compute>
  [[gnu::noinline]] size_t SlowWord(std::string_view word, const Key& key, const Slot* s, size_t words_left,
                                    std::vector<uint32_t>& buffer, size_t w, Compute& compute) {
    if (word.empty()) return w;
    thread_local std::vector<uint32_t> computed;
    const uint32_t* ids;
    size_t count;
    if (s != nullptr) {
      ids = s->ids_size <= Slot::kInlineIds ? s->ids : ids_.data() + s->ids[0];
      count = s->ids_size;
    } else {
      computed.clear();
      compute(word, computed);
      Insert(word, key, computed.data(), computed.size());
      ids = computed.data();
      count = computed.size();
    }
    const size_t need = count + 2 * words_left + kSlack;  // room after w
    if (w + need > buffer.size()) buffer.resize(w + 2 * need);  // twice: zero-filling in proportion to the ids
    std::memcpy(buffer.data() + w, ids, count * sizeof(uint32_t));
    if (computed.capacity() > (1 << 16)) computed = {};
    return w + count;
  }

  // Probe for a word of up to 16 bytes, without the tail compare, inlined into TokenizeSpans's loop:
  // calling Probe there (its memcmp branch inlined into the loop) cost GPT-2's warm pass 9% more
  // instructions. An empty word's key is an empty slot's, which serves it no ids.
  [[gnu::always_inline]] static const Slot* ProbeShort(const Slot* slots, size_t mask, const Key& key) {
    size_t j = key.hash & mask;
    const Slot* s;
    for (size_t probes = 1;; ++probes) {
      s = &slots[j];
      if (s->lo == key.lo && s->hi == key.hi && s->word_size == key.size) break;
      if (s->word_size == 0 || probes == kMaxProbes) {
        s = nullptr;
        break;
      }
      j = (j + 1) & mask;
    }
    return s;
  }
  // The slot holding the word whose key is `key` and whose bytes start at `word`, or nullptr. The
  // word is not empty (an empty word's key is an empty slot's).
  const Slot* Probe(const Slot* slots, size_t mask, const Key& key, const char* word) const {
    size_t i = key.hash & mask;
    for (size_t probes = 1;; ++probes, i = (i + 1) & mask) {
      const Slot& s = slots[i];
      if (s.lo == key.lo && s.hi == key.hi && s.word_size == key.size &&
          (key.size <= kKeyBytes ||
           std::memcmp(words_.data() + s.word_offset, word + kKeyBytes, key.size - kKeyBytes) == 0))
        return &s;
      if (s.word_size == 0 || probes == kMaxProbes) return nullptr;
    }
  }

  // The first empty slot of the kMaxProbes from the one `hash` picks, or nullptr.
  Slot* FreeSlot(uint32_t hash) {
    size_t i = hash & mask_;
    for (size_t probes = 0; probes < kMaxProbes; ++probes, i = (i + 1) & mask_)
      if (slots_[i].word_size == 0) return &slots_[i];
    return nullptr;
  }
  // Twice the slots, the words placed anew (one that finds no free slot near its new one is
  // dropped: its out-of-line bytes stay in the arenas, counted against their bound).
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2, Slot{});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.word_size == 0) continue;
      if (Slot* free = FreeSlot(HashOf(s.lo, s.hi, s.word_size, words_.data() + s.word_offset))) {
        *free = s;
        ++size_;
      }
    }
  }

  size_t capacity_, size_ = 0, mask_ = 0;
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
inline void CachedTokenize(WordCache* cache, std::string_view word, const WordCache::Key& key,
                           std::vector<uint32_t>& out, Compute&& compute) {
  if (cache->Find(word, key, out)) return;
  const size_t first = out.size();
  compute();
  cache->Insert(word, key, out.data() + first, out.size() - first);
}
template <typename Compute>
inline void CachedTokenize(WordCache* cache, std::string_view word, std::vector<uint32_t>& out, Compute&& compute) {
  if (cache == nullptr) return compute();
  CachedTokenize(cache, word, WordCache::KeyOf(word), out, compute);
}

}  // namespace triton_studio::tok
