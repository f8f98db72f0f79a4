// Token/id tables and the BPE merge-pair map (see vocab.h).
#include "vocab.h"

#include <algorithm>

namespace triton_studio::tok {

void Vocab::Add(std::string token, uint32_t id) {
  auto existing = to_id_.find(token);
  if (existing != to_id_.end()) {
    // Same token seen again with another id: the later entry wins.
    has_[existing->second] = false;
    to_id_.erase(existing);
  }
  if (id >= to_token_.size()) {
    const size_t old_capacity = to_token_.capacity();
    to_token_.resize(id + 1);
    has_.resize(id + 1, false);
    if (to_token_.capacity() != old_capacity) {
      // Strings moved: short strings (SSO) change address, so re-key every view.
      std::unordered_map<std::string_view, uint32_t> rekeyed;
      rekeyed.reserve(to_id_.size() + 1);
      for (const auto& kv : to_id_) rekeyed.emplace(to_token_[kv.second], kv.second);
      to_id_.swap(rekeyed);
    }
  }
  if (has_[id]) to_id_.erase(to_token_[id]);
  to_token_[id] = std::move(token);
  has_[id] = true;
  to_id_[to_token_[id]] = id;
}

void Vocab::AddKeepingEarlierIds(std::string token, uint32_t id) {
  // Without a lookup entry for the token, Add leaves the earlier id's string and flag alone.
  if (auto existing = to_id_.find(token); existing != to_id_.end()) to_id_.erase(existing);
  Add(std::move(token), id);
}

void Vocab::Reserve(uint32_t id_limit, size_t tokens) {
  if (id_limit > to_token_.capacity()) {
    // Re-key every view if the strings move (Add does the same when it grows the table).
    to_token_.reserve(id_limit);
    std::unordered_map<std::string_view, uint32_t> rekeyed;
    rekeyed.reserve(std::max(tokens, to_id_.size()));
    for (const auto& kv : to_id_) rekeyed.emplace(to_token_[kv.second], kv.second);
    to_id_.swap(rekeyed);
  } else {
    to_id_.reserve(tokens);
  }
  has_.reserve(id_limit);
}

void PairMap::Reserve(size_t n) {
  size_t cap = 16;
  while (cap < n * 2) cap <<= 1;
  if (cap <= slots_.size()) return;
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(cap, Slot{kEmpty, {0, 0}});
  mask_ = cap - 1;
  size_ = 0;
  for (const Slot& s : old)
    if (s.key != kEmpty) Insert(static_cast<uint32_t>(s.key >> 32), static_cast<uint32_t>(s.key), s.value);
}

void PairMap::Grow() { Reserve(slots_.empty() ? 8 : slots_.size()); }

void PairMap::Insert(uint32_t a, uint32_t b, Value v) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const uint64_t key = Key(a, b);
  for (size_t i = Hash(key) & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.key == kEmpty) {
      s.key = key;
      s.value = v;
      ++size_;
      return;
    }
    if (s.key == key) {
      s.value = v;
      return;
    }
  }
}

}  // namespace triton_studio::tok
