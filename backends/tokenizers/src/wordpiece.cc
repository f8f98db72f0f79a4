// WordPiece exactly as HF's model does it: greedy longest-match-first from the start of the word,
// continuation pieces carry the "##" prefix, and a word with any unmatched rest (or longer than
// max_input_chars_per_word characters) becomes the single unknown token.
#include "byte_level.h"
#include "models.h"
#include "utf8.h"
#include "word_cache.h"

namespace triton_studio::tok {
namespace {

class WordPiece final : public Model {
 public:
  WordPiece(const Json& node, const std::string& path, const TokenizerJson& file) {
    AllowOnlyKeys(node, path, {"unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"});
    if (file.merges) FieldError(path + ".merges", "unsupported option (this library does not implement it)");
    LoadVocab(node, path, file, vocab_);
    const std::string unk_default = "[UNK]", prefix_default = "##";
    const std::string unk = GetString(node, "unk_token", path, &unk_default);
    const auto unk_id = vocab_.Find(unk);
    if (!unk_id) FieldError(path + ".unk_token", "'" + unk + "' is not in the vocabulary");
    unk_id_ = *unk_id;
    prefix_ = GetString(node, "continuing_subword_prefix", path, &prefix_default);
    max_chars_ = GetUint(node, "max_input_chars_per_word", path, 100);
  }

  // Words repeat: most are answered by the cache without a single vocabulary probe.
  void Tokenize(std::string_view word, bool byte_level, std::vector<uint32_t>& out) const override {
    const SharedWordCache::Session session(cache_);
    TokenizeOne(session.cache(), word, byte_level, out);
  }
  void TokenizePieces(std::string_view text, const std::vector<std::pair<uint32_t, uint32_t>>& ranges,
                      bool byte_level, std::vector<uint32_t>& out) const override {
    const SharedWordCache::Session session(cache_);
    for (const auto& [begin, end] : ranges)
      if (end > begin) TokenizeOne(session.cache(), text.substr(begin, end - begin), byte_level, out);
  }

 private:
  void TokenizeOne(WordCache* cache, std::string_view word, bool byte_level, std::vector<uint32_t>& out) const {
    if (byte_level) {
      // HF hands the model the piece in GPT-2's byte alphabet.
      thread_local std::string mapped;
      mapped.clear();
      byte_level::AppendAsChars(word, mapped);
      const std::string copy = mapped;  // TokenizeUncached reuses thread-local scratch
      return TokenizeOne(cache, copy, false, out);
    }
    CachedTokenize(cache, word, out, [&] { TokenizeUncached(word, out); });
  }
  void TokenizeUncached(std::string_view word, std::vector<uint32_t>& out) const {
    size_t chars = 0;
    for (char c : word) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (chars > max_chars_) {
      out.push_back(unk_id_);
      return;
    }
    const size_t first = out.size();
    thread_local std::string candidate;
    size_t start = 0;
    while (start < word.size()) {
      size_t end = word.size();
      bool found = false;
      while (start < end) {
        std::string_view sub = word.substr(start, end - start);
        std::optional<uint32_t> id;
        if (start > 0) {
          candidate.assign(prefix_);
          candidate.append(sub);
          id = vocab_.Find(candidate);
        } else {
          id = vocab_.Find(sub);
        }
        if (id) {
          out.push_back(*id);
          found = true;
          break;
        }
        // Drop the last character.
        --end;
        while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
      }
      if (!found) {
        out.resize(first);
        out.push_back(unk_id_);
        return;
      }
      start = end;
    }
  }

  uint32_t unk_id_ = 0;
  std::string prefix_;
  uint64_t max_chars_ = 100;
  SharedWordCache cache_{100000};
};

}  // namespace

std::unique_ptr<Model> MakeWordPiece(const Json& node, const std::string& path, const TokenizerJson& file) {
  return std::make_unique<WordPiece>(node, path, file);
}

}  // namespace triton_studio::tok
