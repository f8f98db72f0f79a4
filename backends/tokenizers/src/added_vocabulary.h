// Added tokens (special or not): found in the input before the model runs, the way HF's
// AddedVocabulary does it (leftmost-longest match; lstrip/rstrip/single_word; tokens marked
// `normalized` are matched in the normalized text by their normalized form).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "json_fields.h"
#include "normalizers.h"
#include "vocab.h"

namespace triton_studio::tok {

struct AddedToken {
  uint32_t id = 0;
  std::string content;
  // What decoding reads for this id: HF gives normalized tokens their normalized form so the
  // decoder sees what the model saw.
  std::string decode_form;
  bool special = false, single_word = false, lstrip = false, rstrip = false, normalized = false;
};

// A piece of input: either an added token (`id` set) or text to run through the pipeline.
struct AddedSplit {
  size_t begin, end;
  std::optional<uint32_t> id;
};

class AddedVocabulary {
 public:
  // Ids are assigned the way HF does when it loads the list (the "id" field is not trusted): the
  // model's id when the content is already in its vocabulary, else the next id after the model's
  // vocabulary and the added tokens so far.
  void Load(const Json& list, const std::string& path, const Normalizer* normalizer, const Vocab& model_vocab);

  // Splits `text` on the tokens matched in raw text (normalized == false) or in normalized
  // text (normalized == true). Empty text pieces are dropped.
  void Split(std::string_view text, bool normalized, std::vector<AddedSplit>& out) const;
  // True when some token is matched in normalized text (a second Split pass finds something).
  bool MatchesNormalized() const { return !normalized_.empty(); }

  const AddedToken* ById(uint32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &tokens_[it->second];
  }
  std::optional<uint32_t> IdOf(std::string_view content) const {
    auto it = by_content_.find(std::string(content));
    if (it == by_content_.end()) return std::nullopt;
    return tokens_[it->second].id;
  }
  const std::vector<AddedToken>& tokens() const { return tokens_; }
  // HF decides "special" by string: any token whose text equals a special token's content.
  bool IsSpecialText(std::string_view text) const { return special_contents_.count(std::string(text)) != 0; }

 private:
  // A byte trie over the patterns: the longest pattern starting at a position is found in one
  // walk down the trie (one probe per byte), instead of comparing every pattern that shares the
  // first byte (CodeGen has 30 whitespace runs that all start with a space).
  class Matcher {
   public:
    void Add(std::string_view pattern, size_t token);
    bool empty() const { return nodes_.size() == 1; }
    // The first position >= i where a pattern may start (text.size() if none): most bytes start
    // none, and this loop is what they cost. A position qualifies when its byte is a pattern or,
    // with the next byte, begins one: CodeGen's 38 whitespace tokens all start with a space or a
    // tab, and a single space before a word (most of those) must not cost a walk down the trie.
    size_t NextCandidate(std::string_view text, size_t i) const;
    // The token index and length of the longest pattern that starts at text[i], if any.
    bool LongestAt(std::string_view text, size_t i, size_t& token, size_t& length) const;

   private:
    struct Node {
      int64_t token = -1;  // the pattern ending here, -1 if none
      std::vector<std::pair<unsigned char, uint32_t>> children;  // sorted by byte
      // The child reached by `byte`, 0 if none. Inline: LongestAt runs it for every byte it walks.
      uint32_t Child(unsigned char byte) const {
        for (const auto& [b, child] : children) {
          if (b >= byte) return b == byte ? child : 0;
        }
        return 0;
      }
    };
    uint32_t Child(uint32_t node, unsigned char byte) const {
      return node == 0 ? root_children_[byte] : nodes_[node].Child(byte);
    }
    // The first position >= i whose byte starts a pattern (text.size() if none).
    size_t NextFirstByte(std::string_view text, size_t i) const;
    // NextCandidate in blocks of 16 bytes (SSE2; else 8), for when the patterns' first and
    // second bytes are at most four each and none is one byte long (pair_search_): true with `i`
    // at the candidate, or false with `i` where the search ended (the text's end with SSE2, else
    // where the blocks end: the rest is byte by byte).
    bool NextPairStart(std::string_view text, size_t& i) const;
#if defined(__SSE2__)
    // NextPairStart in blocks of 32 bytes, for CPUs with AVX2 (half the instructions a byte).
    [[gnu::target("avx2")]] bool NextPairStartAvx2(std::string_view text, size_t& i) const;
#endif
    // The first position at + k, for bit k of `flags`, that StartsAt: true with `i` there. Inlined
    // into the block loops: a call there made the AVX2 loop keep its constants on the stack.
    [[gnu::always_inline]] bool FirstStartIn(std::string_view text, size_t at, uint32_t flags, size_t& i) const {
      for (; flags != 0; flags &= flags - 1) {
        const size_t k = at + static_cast<size_t>(__builtin_ctz(flags));
        if (StartsAt(text, k)) {
          i = k;
          return true;
        }
      }
      return false;
    }
    // Whether text[i], a pattern's first byte, is a pattern or begins one with text[i + 1].
    bool StartsAt(std::string_view text, size_t i) const {
      const auto b0 = static_cast<unsigned char>(text[i]);
      if (nodes_[root_children_[b0]].token >= 0) return true;
      if (i + 1 >= text.size()) return false;
      const unsigned pair = static_cast<unsigned>(b0) << 8 | static_cast<unsigned char>(text[i + 1]);
      return (pair_starts_[pair >> 6] >> (pair & 63)) & 1;
    }
    std::vector<Node> nodes_ = std::vector<Node>(1);  // nodes_[0] is the root
    uint32_t root_children_[256] = {};                // the root's children, by byte (0 = none)
    std::vector<unsigned char> first_bytes_, second_bytes_;  // distinct, over all patterns
    uint64_t first_words_[4] = {}, second_words_[4] = {};     // up to four of each, in all 8 bytes
    bool pair_search_ = false;
    std::vector<uint64_t> pair_starts_ = std::vector<uint64_t>(1024);  // bit b0 << 8 | b1: a pattern begins so
  };
  std::vector<AddedToken> tokens_;
  std::unordered_map<uint32_t, size_t> by_id_;
  std::unordered_map<std::string, size_t> by_content_;
  std::unordered_set<std::string> special_contents_;
  Matcher raw_, normalized_;
};

}  // namespace triton_studio::tok
