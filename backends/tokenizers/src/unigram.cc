// Unigram (SentencePiece's model) exactly as HF's: the best-scoring segmentation of a piece by
// dynamic programming over a byte trie of the vocabulary (HF's encode_optimized, after
// SentencePiece), a character no vocabulary piece covers scored as the unknown token at the
// lowest score minus 10, runs of unknown characters fused into one piece, which then becomes its
// <0xXX> byte tokens (byte_fallback) or the unknown id.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "byte_level.h"
#include "models.h"
#include "utf8.h"
#include "word_cache.h"

namespace triton_studio::tok {
namespace {

constexpr double kUnknownPenalty = 10.0;

// A byte trie in one array: the children of a node are contiguous and sorted by byte.
class PieceTrie {
 public:
  // `pieces` in vocabulary order; a piece listed twice resolves to its last id, as HF's map does.
  void Build(const std::vector<std::string>& pieces) {
    std::vector<uint32_t> order(pieces.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return pieces[a] < pieces[b]; });
    nodes_.assign(1, Node{});
    struct Pending {
      uint32_t node, lo, hi, depth;
    };
    std::vector<Pending> queue{{0, 0, static_cast<uint32_t>(order.size()), 0}};
    for (size_t q = 0; q < queue.size(); ++q) {
      const Pending p = queue[q];
      uint32_t lo = p.lo;
      // Pieces that end here sort first; the last of equal pieces wins.
      while (lo < p.hi && pieces[order[lo]].size() == p.depth) nodes_[p.node].token = static_cast<int32_t>(order[lo++]);
      nodes_[p.node].child_begin = static_cast<uint32_t>(nodes_.size());
      for (uint32_t i = lo; i < p.hi;) {
        const char byte = pieces[order[i]][p.depth];
        uint32_t j = i;
        while (j < p.hi && pieces[order[j]][p.depth] == byte) ++j;
        Node child;
        child.byte = static_cast<uint8_t>(byte);
        queue.push_back({static_cast<uint32_t>(nodes_.size()), i, j, p.depth + 1});
        nodes_.push_back(child);
        ++nodes_[p.node].child_count;
        i = j;
      }
    }
    nodes_.shrink_to_fit();
  }

  // Calls visit(length, token) for every vocabulary piece that is a prefix of `text`, shortest first.
  template <typename Visit>
  void CommonPrefixes(std::string_view text, Visit&& visit) const {
    uint32_t node = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const Node& n = nodes_[node];
      const auto byte = static_cast<uint8_t>(text[i]);
      const Node* begin = nodes_.data() + n.child_begin;
      const Node* end = begin + n.child_count;
      const Node* child =
          std::lower_bound(begin, end, byte, [](const Node& c, uint8_t b) { return c.byte < b; });
      if (child == end || child->byte != byte) return;
      node = static_cast<uint32_t>(child - nodes_.data());
      if (child->token >= 0) visit(i + 1, static_cast<uint32_t>(child->token));
    }
  }

 private:
  struct Node {
    uint32_t child_begin = 0;
    uint32_t child_count = 0;
    int32_t token = -1;
    uint8_t byte = 0;
  };
  std::vector<Node> nodes_;
};

class Unigram final : public Model {
 public:
  Unigram(const Json& node, const std::string& path, const TokenizerJson& file) {
    // The vocabulary's shape first: a BPE-shaped model relabelled Unigram is told so.
    if (file.vocab || file.merges)
      FieldError(path + ".vocab", "expected an array of [piece, score] pairs (a Unigram model has no merges)");
    AllowOnlyKeys(node, path, {"vocab", "unk_id", "byte_fallback"});
    const Json* list = Find(node, "vocab");
    if (list == nullptr || !list->is_array()) FieldError(path + ".vocab", "expected an array of [piece, score] pairs");
    std::vector<std::string> pieces;
    pieces.reserve(list->size());
    scores_.reserve(list->size());
    for (size_t i = 0; i < list->size(); ++i) {
      const Json& entry = (*list)[i];
      if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
        FieldError(path + ".vocab[" + std::to_string(i) + "]", "expected [piece, score]");
      pieces.push_back(entry[0].get<std::string>());
      scores_.push_back(entry[1].get<double>());
    }
    if (pieces.size() >= (1u << 24)) FieldError(path + ".vocab", "too many pieces (at most 16777215)");
    if (const Json* unk = Find(node, "unk_id")) {
      if (!unk->is_number_unsigned()) FieldError(path + ".unk_id", "expected a non-negative integer or null");
      if (pieces.empty()) FieldError(path + ".vocab", "the vocabulary is empty but unk_id needs a piece");
      if (unk->get<uint64_t>() >= pieces.size())
        FieldError(path + ".unk_id", "is not an index of the vocabulary (" + std::to_string(pieces.size()) + " pieces)");
      unk_id_ = static_cast<uint32_t>(unk->get<uint64_t>());
    }
    byte_fallback_ = GetBool(node, "byte_fallback", path, false);
    min_score_ = std::numeric_limits<double>::infinity();
    for (double s : scores_) min_score_ = std::min(min_score_, s);
    trie_.Build(pieces);
    vocab_.Reserve(static_cast<uint32_t>(pieces.size()), pieces.size());
    for (size_t id = 0; id < pieces.size(); ++id) vocab_.AddKeepingEarlierIds(pieces[id], static_cast<uint32_t>(id));
    char name[8];
    for (int b = 0; b < 256; ++b) {
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      const auto id = vocab_.Find(name);
      byte_ids_[b] = id ? static_cast<int32_t>(*id) : -1;
    }
  }

  void Tokenize(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const override {
    const SharedWordCache::Session session(cache_);
    TokenizeOne(session.cache(), piece, byte_level, out);
  }
  void TokenizePieces(std::string_view text, const std::vector<std::pair<uint32_t, uint32_t>>& ranges,
                      bool byte_level, std::vector<uint32_t>& out) const override {
    const SharedWordCache::Session session(cache_);
    for (const auto& [begin, end] : ranges)
      if (end > begin) TokenizeOne(session.cache(), text.substr(begin, end - begin), byte_level, out);
  }

 private:
  struct Best {
    double score = 0.0;
    int64_t starts_at = -1;
    uint32_t id = 0;
  };

  void TokenizeOne(WordCache* cache, std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const {
    if (byte_level) {
      thread_local std::string mapped;
      mapped.clear();
      byte_level::AppendAsChars(piece, mapped);
      const std::string copy = mapped;
      return TokenizeOne(cache, copy, false, out);
    }
    if (piece.empty()) return;
    CachedTokenize(cache, piece, out, [&] { Encode(piece, out); });
  }

  [[noreturn]] static void MissingUnk() {
    throw TokenizerError("Encode: the Unigram model met a character no piece covers and has no unk_id");
  }

  void Encode(std::string_view text, std::vector<uint32_t>& out) const {
    const size_t size = text.size();
    const double unk_score = min_score_ - kUnknownPenalty;
    thread_local std::vector<Best> best;
    best.assign(size + 1, Best{});
    for (size_t start = 0; start < size;) {
      const double till_here = best[start].score;
      const size_t char_len = utf8::ValidSequenceLength(text, start);
      bool has_single = false;
      trie_.CommonPrefixes(text.substr(start), [&](size_t length, uint32_t id) {
        Best& target = best[start + length];
        const double candidate = scores_[id] + till_here;
        if (target.starts_at < 0 || candidate > target.score) {
          target.score = candidate;
          target.starts_at = static_cast<int64_t>(start);
          target.id = id;
        }
        has_single = has_single || length == char_len;
      });
      if (!has_single) {
        Best& target = best[start + char_len];
        const double candidate = unk_score + till_here;
        if (target.starts_at < 0 || candidate > target.score) {
          if (!unk_id_) MissingUnk();
          target.score = candidate;
          target.starts_at = static_cast<int64_t>(start);
          target.id = *unk_id_;
        }
      }
      start += char_len;
    }
    // Walk the best path back; consecutive unknown-token nodes fuse into one piece.
    thread_local std::vector<std::pair<size_t, size_t>> spans;  // [begin, end) of each result piece
    spans.clear();
    size_t fused_begin = 0, fused_end = 0;
    bool fusing = false;
    for (size_t end = size; end > 0;) {
      const Best& node = best[end];
      if (node.starts_at < 0) MissingUnk();
      const auto begin = static_cast<size_t>(node.starts_at);
      if (unk_id_ && node.id == *unk_id_) {
        if (!fusing) fused_end = end;
        fused_begin = begin;
        fusing = true;
      } else {
        if (fusing) spans.emplace_back(fused_begin, fused_end);
        fusing = false;
        spans.emplace_back(begin, end);
      }
      end = begin;
    }
    if (fusing) spans.emplace_back(fused_begin, fused_end);
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
      const std::string_view s = text.substr(it->first, it->second - it->first);
      if (const auto id = vocab_.Find(s)) {
        out.push_back(*id);
        continue;
      }
      if (byte_fallback_ &&
          std::all_of(s.begin(), s.end(), [&](char c) { return byte_ids_[static_cast<unsigned char>(c)] >= 0; })) {
        for (char c : s) out.push_back(static_cast<uint32_t>(byte_ids_[static_cast<unsigned char>(c)]));
        continue;
      }
      if (!unk_id_) MissingUnk();
      out.push_back(*unk_id_);
    }
  }

  std::vector<double> scores_;
  double min_score_ = 0.0;
  std::optional<uint32_t> unk_id_;
  bool byte_fallback_ = false;
  int32_t byte_ids_[256];
  PieceTrie trie_;
  SharedWordCache cache_{100000};
};

}  // namespace

std::unique_ptr<Model> MakeUnigram(const Json& node, const std::string& path, const TokenizerJson& file) {
  return std::make_unique<Unigram>(node, path, file);
}

}  // namespace triton_studio::tok
