// Models: turn one pre-tokenized piece into token ids. Mirror HF's BPE, WordPiece, WordLevel and Unigram.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_fields.h"
#include "tokenizer_json.h"
#include "vocab.h"
#include "word_cache.h"

namespace triton_studio::tok {

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of `piece`. With `byte_level`, the piece is raw UTF-8 that HF would have
  // mapped through GPT-2's byte alphabet first; the model applies that mapping itself.
  virtual void Tokenize(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const = 0;
  // Appends the ids of each non-empty [begin, end) range of `text`, in order: the pieces of one
  // pre-tokenized span. Models with a word cache take it once here instead of once per piece.
  virtual void TokenizePieces(std::string_view text, const std::vector<std::pair<uint32_t, uint32_t>>& ranges,
                              bool byte_level, std::vector<uint32_t>& out) const {
    for (const auto& [begin, end] : ranges)
      if (end > begin) Tokenize(text.substr(begin, end - begin), byte_level, out);
  }
  // TokenizePieces of each span in turn; ends[s]: out.size() after span s. A batch of texts
  // comes here at once (HfTokenizer::EncodeFlat), so that a model with a word cache looks up all
  // their words in one pass.
  using Span = WordCache::Span;
  virtual void TokenizeSpans(const Span* spans, size_t count, bool byte_level, std::vector<uint32_t>& out,
                             size_t* ends) const {
    thread_local std::vector<std::pair<uint32_t, uint32_t>> ranges;
    for (size_t s = 0; s < count; ++s) {
      ranges.assign(spans[s].ranges, spans[s].ranges + spans[s].count);
      TokenizePieces(spans[s].text, ranges, byte_level, out);
      ends[s] = out.size();
    }
  }
  const Vocab& vocab() const { return vocab_; }

 protected:
  Vocab vocab_;
};

// `file` holds the model's vocabulary and merges, read apart from the DOM (tokenizer_json.h).
std::unique_ptr<Model> MakeModel(const Json& node, const std::string& path, const TokenizerJson& file);

// Fills `vocab` from model.vocab, with errors naming the field.
void LoadVocab(const Json& node, const std::string& path, const TokenizerJson& file, Vocab& vocab);

}  // namespace triton_studio::tok
