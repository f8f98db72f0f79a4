// Byte-pair encoding exactly as HF's BPE model does it: symbols start as characters (or bytes
// through GPT-2's alphabet), unknown characters fall back to <0xXX> byte tokens or the unknown
// token, then pairs merge lowest rank first, leftmost first among equal ranks.
#include <algorithm>
#include <queue>

#include "byte_level.h"
#include "models.h"
#include "utf8.h"
#include "word_cache.h"

namespace triton_studio::tok {
namespace {

constexpr uint32_t kNone = ~0u;
constexpr std::string_view kWordStart = "\xE2\x96\x81";  // U+2581 "▁", SentencePiece's word-start mark

class Bpe final : public Model {
 public:
  Bpe(const Json& node, const std::string& path, const TokenizerJson& file);
  void Tokenize(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const override;
  void TokenizePieces(std::string_view text, const std::vector<std::pair<uint32_t, uint32_t>>& ranges,
                      bool byte_level, std::vector<uint32_t>& out) const override;
  void TokenizeSpans(const Span* spans, size_t count, bool byte_level, std::vector<uint32_t>& out,
                     size_t* ends) const override;

 private:
  struct Symbol {
    uint32_t id;
    int32_t prev, next;
    bool removed;
  };
  struct Merge {
    uint32_t rank;
    uint32_t pos;
    uint32_t new_id;
    // std::priority_queue pops the largest: invert so the lowest (rank, pos) comes first.
    bool operator<(const Merge& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  struct Scratch {
    std::vector<Symbol> symbols;
    std::vector<Merge> heap;
    std::string mapped;
  };

  // One piece, split at word starts where that cannot change the result; `cache` may be nullptr.
  void TokenizePiece(std::string_view piece, bool byte_level, WordCache* cache, std::vector<uint32_t>& out) const;
  // One word: symbols, then merges (kept out of line: the cached path around it is the hot one).
  __attribute__((noinline)) void TokenizeWord(std::string_view word, bool byte_level, std::vector<uint32_t>& out) const;
  // Appends the initial symbol(s) for one character (its UTF-8 in `ch`); `unk` holds a pending
  // unknown-token run (fuse_unk) as (id, active).
  void AddChar(std::string_view ch, bool first, bool last, std::vector<Symbol>& symbols, uint32_t& pending_unk) const;
  void MergeAll(std::vector<Symbol>& symbols, std::vector<Merge>& heap) const;
  // The same merges for a short word, appending the result to `out`: see kShortWord.
  void MergeShort(const std::vector<Symbol>& symbols, std::vector<uint32_t>& out) const;
  // Up to this many symbols, scanning a flat array for the lowest (rank, position) pair beats the
  // heap: HF's order (lowest rank, leftmost among equals) is the same, and a merged pair's
  // neighbours are the only ranks that change.
  static constexpr size_t kShortWord = 32;

  PairMap merges_;
  std::optional<uint32_t> unk_id_;
  bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
  // Added to every character but a word's first / after its last before the vocabulary lookup
  // (BERT-style "##" BPE, CLIP's "</w>").
  std::string prefix_, suffix_;
  // SentencePiece-style vocabularies (Llama, Mistral) have no pre-tokenizer: the whole input is one
  // BPE word, which the word cache cannot serve. When no merge joins a symbol ending in another
  // character to one starting with the word-start mark "▁", no merge can cross the position
  // before a "▁" that follows another character, so the word splits there with the same result.
  bool split_at_word_starts_ = false;
  int32_t byte_fallback_ids_[256];
  int64_t byte_level_ids_[256];  // vocab id of each byte's GPT-2 character, or -1

  SharedWordCache cache_{100000};  // word -> ids, bounded like HF's
};

Bpe::Bpe(const Json& node, const std::string& path, const TokenizerJson& file) {
  AllowOnlyKeys(node, path,
                {"dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
                 "byte_fallback", "ignore_merges", "vocab", "merges"});
  if (const Json* d = Find(node, "dropout")) {
    if (!d->is_number() || d->get<double>() != 0.0)
      FieldError(path + ".dropout", "unsupported: BPE dropout makes encoding random (use null)");
  }
  const std::string none;
  prefix_ = GetString(node, "continuing_subword_prefix", path, &none);
  suffix_ = GetString(node, "end_of_word_suffix", path, &none);
  fuse_unk_ = GetBool(node, "fuse_unk", path, false);
  byte_fallback_ = GetBool(node, "byte_fallback", path, false);
  ignore_merges_ = GetBool(node, "ignore_merges", path, false);

  LoadVocab(node, path, file, vocab_);
  if (const Json* unk = Find(node, "unk_token")) {
    if (!unk->is_string()) FieldError(path + ".unk_token", "expected a string");
    unk_id_ = vocab_.Find(unk->get<std::string>());
    if (!unk_id_) FieldError(path + ".unk_token", "'" + unk->get<std::string>() + "' is not in the vocabulary");
  }

  // The reader takes an array-valued model.merges out of the DOM; anything left there is not one.
  if (!file.merges || node.contains("merges")) FieldError(path + ".merges", "expected an array");
  const MergeTable& merges = *file.merges;
  merges_.Reserve(merges.pairs.size());
  std::string merged;
  for (size_t rank = 0; rank < merges.pairs.size(); ++rank) {
    const auto& [a, b] = merges.pairs[rank];
    const auto where = [&] { return path + ".merges[" + std::to_string(rank) + "]"; };
    const auto ia = vocab_.Find(a), ib = vocab_.Find(b);
    if (!ia) FieldError(where(), "'" + a + "' is not in the vocabulary");
    if (!ib) FieldError(where(), "'" + b + "' is not in the vocabulary");
    // HF drops the prefix's length from the right token whether or not it starts with it.
    if (b.size() < prefix_.size())
      FieldError(where(), "'" + b + "' is shorter than continuing_subword_prefix '" + prefix_ + "'");
    merged.assign(a).append(b, prefix_.size());
    const auto im = vocab_.Find(merged);
    if (!im) FieldError(where(), "merge result '" + merged + "' is not in the vocabulary");
    merges_.Insert(*ia, *ib, {static_cast<uint32_t>(rank), *im});
  }
  if (merges.bad) FieldError(path + ".merges[" + std::to_string(merges.pairs.size()) + "]", *merges.bad);

  split_at_word_starts_ = !ignore_merges_ && prefix_.empty() && suffix_.empty() && vocab_.Find(kWordStart).has_value() &&
                          std::none_of(merges.pairs.begin(), merges.pairs.end(), [](const auto& m) {
                            const std::string_view a = m.first, b = m.second;
                            const bool a_ends_with_mark = a.size() >= kWordStart.size() &&
                                                          a.substr(a.size() - kWordStart.size()) == kWordStart;
                            return !a_ends_with_mark && b.substr(0, kWordStart.size()) == kWordStart;
                          });

  char name[8];
  for (int b = 0; b < 256; ++b) {
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const auto id = vocab_.Find(name);
    byte_fallback_ids_[b] = id ? static_cast<int32_t>(*id) : -1;
    std::string ch;
    utf8::Append(byte_level::ByteToChar()[b], ch);
    const auto bl = vocab_.Find(ch);
    byte_level_ids_[b] = bl ? static_cast<int64_t>(*bl) : -1;
  }
}

void Bpe::AddChar(std::string_view ch, bool first, bool last, std::vector<Symbol>& symbols,
                  uint32_t& pending_unk) const {
  const auto push = [&](uint32_t id) {
    const auto n = static_cast<int32_t>(symbols.size());
    symbols.push_back({id, n - 1, n + 1, false});
  };
  thread_local std::string affixed;
  if ((!first && !prefix_.empty()) || (last && !suffix_.empty())) {
    affixed.assign(first ? "" : prefix_).append(ch).append(last ? suffix_ : "");
    ch = affixed;
  }
  if (const auto id = vocab_.Find(ch)) {
    if (pending_unk != kNone) {
      push(pending_unk);
      pending_unk = kNone;
    }
    push(*id);
    return;
  }
  if (byte_fallback_) {
    bool all = true;
    for (char c : ch) all = all && byte_fallback_ids_[static_cast<unsigned char>(c)] >= 0;
    if (all) {
      // HF adds the byte tokens without flushing a pending unknown run first.
      for (char c : ch) push(static_cast<uint32_t>(byte_fallback_ids_[static_cast<unsigned char>(c)]));
      return;
    }
  }
  if (unk_id_) {
    if (pending_unk != kNone && !fuse_unk_) push(pending_unk);
    pending_unk = *unk_id_;
  }
  // Without an unknown token HF drops the character.
}

void Bpe::MergeAll(std::vector<Symbol>& symbols, std::vector<Merge>& heap) const {
  heap.clear();
  for (size_t i = 0; i + 1 < symbols.size(); ++i) {
    if (const auto* m = merges_.Find(symbols[i].id, symbols[i + 1].id))
      heap.push_back({m->rank, static_cast<uint32_t>(i), m->id});
  }
  std::make_heap(heap.begin(), heap.end());
  const auto n = static_cast<int32_t>(symbols.size());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const Merge top = heap.back();
    heap.pop_back();
    Symbol& cur = symbols[top.pos];
    if (cur.removed || cur.next >= n) continue;
    const int32_t next_pos = cur.next;
    const Symbol right = symbols[next_pos];
    // Skip entries made stale by earlier merges (HF checks the pair still yields this id).
    const auto* m = merges_.Find(cur.id, right.id);
    if (m == nullptr || m->id != top.new_id) continue;
    cur.id = top.new_id;
    cur.next = right.next;
    symbols[next_pos].removed = true;
    if (right.next < n) symbols[right.next].prev = static_cast<int32_t>(top.pos);
    if (cur.prev >= 0) {
      if (const auto* pm = merges_.Find(symbols[cur.prev].id, cur.id)) {
        heap.push_back({pm->rank, static_cast<uint32_t>(cur.prev), pm->id});
        std::push_heap(heap.begin(), heap.end());
      }
    }
    if (cur.next < n) {
      if (const auto* nm = merges_.Find(cur.id, symbols[cur.next].id)) {
        heap.push_back({nm->rank, top.pos, nm->id});
        std::push_heap(heap.begin(), heap.end());
      }
    }
  }
}

void Bpe::MergeShort(const std::vector<Symbol>& symbols, std::vector<uint32_t>& out) const {
  constexpr uint32_t kNoMerge = ~0u;
  uint32_t ids[kShortWord], ranks[kShortWord], merged[kShortWord];
  size_t n = symbols.size();
  const auto pair = [&](size_t i) {  // ranks[i], merged[i] for the pair (ids[i], ids[i + 1])
    const auto* m = merges_.Find(ids[i], ids[i + 1]);
    ranks[i] = m ? m->rank : kNoMerge;
    merged[i] = m ? m->id : 0;
  };
  for (size_t i = 0; i < n; ++i) ids[i] = symbols[i].id;
  for (size_t i = 0; i + 1 < n; ++i) pair(i);
  while (n > 1) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < n; ++i)
      if (ranks[i] < ranks[best]) best = i;
    if (ranks[best] == kNoMerge) break;
    ids[best] = merged[best];
    for (size_t i = best + 1; i + 1 < n; ++i) ids[i] = ids[i + 1];
    for (size_t i = best + 1; i + 2 < n; ++i) {
      ranks[i] = ranks[i + 1];
      merged[i] = merged[i + 1];
    }
    --n;
    if (best > 0) pair(best - 1);
    if (best + 1 < n) pair(best);
  }
  out.insert(out.end(), ids, ids + n);
}

void Bpe::Tokenize(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const {
  const SharedWordCache::Session session(cache_);
  TokenizePiece(piece, byte_level, session.cache(), out);
}

void Bpe::TokenizePieces(std::string_view text, const std::vector<std::pair<uint32_t, uint32_t>>& ranges,
                         bool byte_level, std::vector<uint32_t>& out) const {
  const SharedWordCache::Session session(cache_);
  WordCache* cache = session.cache();
  if (split_at_word_starts_ && !byte_level) {
    for (const auto& [begin, end] : ranges) TokenizePiece(text.substr(begin, end - begin), byte_level, cache, out);
    return;
  }
  // Every piece is one word: the loop GPT-2-style vocabularies spend most of a warm encode in.
  if (cache == nullptr) {
    for (const auto& [begin, end] : ranges)
      if (end > begin) TokenizeWord(std::string_view(text.data() + begin, end - begin), byte_level, out);
    return;
  }
  cache->TokenizeAll(text, ranges, out,
                     [&](std::string_view word, std::vector<uint32_t>& ids) { TokenizeWord(word, byte_level, ids); });
}

void Bpe::TokenizeSpans(const Span* spans, size_t count, bool byte_level, std::vector<uint32_t>& out,
                        size_t* ends) const {
  if (split_at_word_starts_ && !byte_level) return Model::TokenizeSpans(spans, count, byte_level, out, ends);
  const SharedWordCache::Session session(cache_);
  WordCache* cache = session.cache();
  if (cache == nullptr) {  // another thread holds it: every word merged
    for (size_t s = 0; s < count; ++s) {
      for (size_t i = 0; i < spans[s].count; ++i) {
        const auto [begin, end] = spans[s].ranges[i];
        if (end > begin) TokenizeWord(spans[s].text.substr(begin, end - begin), byte_level, out);
      }
      ends[s] = out.size();
    }
    return;
  }
  cache->TokenizeSpans(spans, count, out, ends,
                       [&](std::string_view word, std::vector<uint32_t>& ids) { TokenizeWord(word, byte_level, ids); });
}

void Bpe::TokenizePiece(std::string_view piece, bool byte_level, WordCache* cache, std::vector<uint32_t>& out) const {
  const auto word = [&](std::string_view w) {
    if (!w.empty()) CachedTokenize(cache, w, out, [&] { TokenizeWord(w, byte_level, out); });
  };
  if (!split_at_word_starts_ || byte_level) return word(piece);
  const size_t n = kWordStart.size();
  size_t start = 0;
  for (size_t pos = piece.find(kWordStart, 1); pos != std::string_view::npos; pos = piece.find(kWordStart, pos + n)) {
    if (pos >= n && piece.compare(pos - n, n, kWordStart) == 0) continue;  // inside a run of marks
    word(piece.substr(start, pos - start));
    start = pos;
  }
  word(piece.substr(start));
}

void Bpe::TokenizeWord(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const {
  thread_local Scratch scratch;
  std::vector<Symbol>& symbols = scratch.symbols;
  symbols.clear();

  if (ignore_merges_) {
    std::string_view word = piece;
    if (byte_level) {
      scratch.mapped.clear();
      for (char c : piece) utf8::Append(byte_level::ByteToChar()[static_cast<unsigned char>(c)], scratch.mapped);
      word = scratch.mapped;
    }
    if (const auto id = vocab_.Find(word)) {
      out.push_back(*id);
      return;
    }
  }

  uint32_t pending_unk = kNone;
  const bool affixes = !prefix_.empty() || !suffix_.empty();
  if (byte_level) {
    for (size_t i = 0; i < piece.size(); ++i) {
      const auto b = static_cast<unsigned char>(piece[i]);
      if (byte_level_ids_[b] >= 0 && pending_unk == kNone && !affixes) {
        const auto n = static_cast<int32_t>(symbols.size());
        symbols.push_back({static_cast<uint32_t>(byte_level_ids_[b]), n - 1, n + 1, false});
      } else {
        std::string ch;
        utf8::Append(byte_level::ByteToChar()[b], ch);
        AddChar(ch, i == 0, i + 1 == piece.size(), symbols, pending_unk);
      }
    }
  } else {
    for (size_t i = 0; i < piece.size();) {
      const size_t n = utf8::ValidSequenceLength(piece, i);
      AddChar(piece.substr(i, n), i == 0, i + n == piece.size(), symbols, pending_unk);
      i += n;
    }
  }
  if (pending_unk != kNone) {
    const auto n = static_cast<int32_t>(symbols.size());
    symbols.push_back({pending_unk, n - 1, n + 1, false});
  }

  if (symbols.size() <= kShortWord) return MergeShort(symbols, out);
  MergeAll(symbols, scratch.heap);
  for (const Symbol& s : symbols)
    if (!s.removed) out.push_back(s.id);
}

}  // namespace

std::unique_ptr<Model> MakeBpe(const Json& node, const std::string& path, const TokenizerJson& file) {
  return std::make_unique<Bpe>(node, path, file);
}

}  // namespace triton_studio::tok
