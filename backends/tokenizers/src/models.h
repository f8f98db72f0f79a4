// Models: turn one pre-tokenized piece into token ids. Mirror HF's BPE, WordPiece, WordLevel and Unigram.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_fields.h"
#include "tokenizer_json.h"
#include "vocab.h"

namespace triton_studio::tok {

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of `piece`. With `byte_level`, the piece is raw UTF-8 that HF would have
  // mapped through GPT-2's byte alphabet first; the model applies that mapping itself.
  virtual void Tokenize(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const = 0;
  const Vocab& vocab() const { return vocab_; }

 protected:
  Vocab vocab_;
};

// `file` holds the model's vocabulary and merges, read apart from the DOM (tokenizer_json.h).
std::unique_ptr<Model> MakeModel(const Json& node, const std::string& path, const TokenizerJson& file);

// Fills `vocab` from model.vocab, with errors naming the field.
void LoadVocab(const Json& node, const std::string& path, const TokenizerJson& file, Vocab& vocab);

}  // namespace triton_studio::tok
