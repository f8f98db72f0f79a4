// The model of a tokenizer.json (see models.h): which of BPE, WordPiece, WordLevel, Unigram, and
// its vocabulary.
#include "models.h"

#include <map>

#include "component_table.h"

namespace triton_studio::tok {

// bpe.cc, wordpiece.cc, wordlevel.cc, unigram.cc
std::unique_ptr<Model> MakeBpe(const Json& node, const std::string& path, const TokenizerJson& file);
std::unique_ptr<Model> MakeWordPiece(const Json& node, const std::string& path, const TokenizerJson& file);
std::unique_ptr<Model> MakeWordLevel(const Json& node, const std::string& path, const TokenizerJson& file);
std::unique_ptr<Model> MakeUnigram(const Json& node, const std::string& path, const TokenizerJson& file);

namespace {
using ModelFactory = std::unique_ptr<Model> (*)(const Json&, const std::string&, const TokenizerJson&);
const ComponentEntry<ModelFactory> kModels[] = {
    {"BPE", MakeBpe}, {"WordPiece", MakeWordPiece}, {"WordLevel", MakeWordLevel}, {"Unigram", MakeUnigram}};
}  // namespace

std::unique_ptr<Model> MakeModel(const Json& node, const std::string& path, const TokenizerJson& file) {
  return FindComponent(kModels, node, path, "model")(node, path, file);
}

void LoadVocab(const Json& node, const std::string& path, const TokenizerJson& file, Vocab& vocab) {
  // The reader takes an object-valued model.vocab out of the DOM; anything left there is not one.
  if (!file.vocab || node.contains("vocab")) FieldError(path + ".vocab", "expected an object {token: id}");
  const VocabTable& table = *file.vocab;
  if (table.bad_key) FieldError(path + ".vocab[\"" + *table.bad_key + "\"]", "expected a non-negative id below 2^32 (a u32)");
  constexpr uint32_t kMaxId = (1u << 24) - 1;  // far above any real vocabulary; bounds the id table
  std::vector<bool> taken;
  bool shared_ids = false;
  for (const auto& [token, id] : table.entries) {
    if (id > kMaxId)
      FieldError(path + ".vocab[\"" + token + "\"]", "id " + std::to_string(id) + " is too large (at most " +
                                                           std::to_string(kMaxId) + ")");
    if (id >= taken.size()) taken.resize(id + 1, false);
    shared_ids = shared_ids || taken[id];
    taken[id] = true;
  }
  vocab.Reserve(static_cast<uint32_t>(taken.size()), table.entries.size());
  if (!shared_ids) {
    for (const auto& [token, id] : table.entries) vocab.Add(token, id);
    return;
  }
  // Ids repeat (a repeated key, or two tokens with one id): settle it as HF's map does (a key
  // keeps its last id) and give a shared id to the greatest token, deterministically.
  std::map<std::string, uint32_t> by_token;
  for (const auto& [token, id] : table.entries) by_token[token] = id;
  for (const auto& [token, id] : by_token) vocab.Add(token, id);
}

}  // namespace triton_studio::tok
