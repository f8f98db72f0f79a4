// Token <-> id tables shared by the models, and a flat hash map for BPE merge pairs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace triton_studio::tok {

class Vocab {
 public:
  // Adds or replaces token -> id (later duplicates win, as when HF deserializes a JSON map).
  void Add(std::string token, uint32_t id);
  // As Add, but a token seen before keeps its earlier ids for decoding (Unigram: HF reads an id's
  // piece from its list, while the piece's lookup gives the last id).
  void AddKeepingEarlierIds(std::string token, uint32_t id);
  // Room for ids below `id_limit` and `tokens` entries (no rehashing or re-keying while adding).
  void Reserve(uint32_t id_limit, size_t tokens);
  std::optional<uint32_t> Find(std::string_view token) const {
    auto it = to_id_.find(token);
    if (it == to_id_.end()) return std::nullopt;
    return it->second;
  }
  const std::string* Token(uint32_t id) const {
    return id < to_token_.size() && has_[id] ? &to_token_[id] : nullptr;
  }
  uint32_t Size() const { return static_cast<uint32_t>(to_id_.size()); }
  // One past the largest id.
  uint32_t IdLimit() const { return static_cast<uint32_t>(to_token_.size()); }

 private:
  std::vector<std::string> to_token_;
  std::vector<bool> has_;
  // Keys view into to_token_ strings: rebuilt after every Add that may reallocate.
  std::unordered_map<std::string_view, uint32_t> to_id_;
};

// Open-addressing hash map from a pair of 32-bit ids to a merge (rank, new id). BPE looks pairs
// up in its inner loop; std::unordered_map's node chasing is measurably slower there.
class PairMap {
 public:
  struct Value {
    uint32_t rank, id;
  };
  void Reserve(size_t n);
  void Insert(uint32_t a, uint32_t b, Value v);  // replaces an existing entry
  const Value* Find(uint32_t a, uint32_t b) const {
    if (slots_.empty()) return nullptr;
    const uint64_t key = Key(a, b);
    for (size_t i = Hash(key) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == kEmpty) return nullptr;
      if (s.key == key) return &s.value;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    Value value;
  };
  static constexpr uint64_t kEmpty = ~0ULL;
  static uint64_t Key(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }
  static size_t Hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<size_t>(k);
  }
  void Grow();
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
};

}  // namespace triton_studio::tok
