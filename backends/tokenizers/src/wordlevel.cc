// WordLevel as HF's model: every piece is one token, its vocabulary id or else the unknown
// token's (a piece neither matches is an error at encode time, as in HF).
#include "byte_level.h"
#include "models.h"

namespace triton_studio::tok {
namespace {

class WordLevel final : public Model {
 public:
  WordLevel(const Json& node, const std::string& path, const TokenizerJson& file) {
    AllowOnlyKeys(node, path, {"vocab", "unk_token"});
    if (file.merges) FieldError(path + ".merges", "unsupported option (this library does not implement it)");
    LoadVocab(node, path, file, vocab_);
    const std::string unk_default = "<unk>";
    unk_ = GetString(node, "unk_token", path, &unk_default);
    unk_id_ = vocab_.Find(unk_);
  }

  void Tokenize(std::string_view piece, bool byte_level, std::vector<uint32_t>& out) const override {
    std::optional<uint32_t> id;
    if (byte_level) {
      thread_local std::string mapped;
      mapped.clear();
      byte_level::AppendAsChars(piece, mapped);
      id = vocab_.Find(mapped);
    } else {
      id = vocab_.Find(piece);
    }
    if (!id) id = unk_id_;
    if (!id)
      throw TokenizerError("Encode: the WordLevel model has no token for a piece of the input and its unk_token '" +
                           unk_ + "' is not in the vocabulary");
    out.push_back(*id);
  }

 private:
  std::string unk_;
  std::optional<uint32_t> unk_id_;
};

}  // namespace

std::unique_ptr<Model> MakeWordLevel(const Json& node, const std::string& path, const TokenizerJson& file) {
  return std::make_unique<WordLevel>(node, path, file);
}

}  // namespace triton_studio::tok
