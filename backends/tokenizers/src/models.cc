#include "models.h"

namespace triton_studio::tok {

std::unique_ptr<Model> MakeBpe(const Json& node, const std::string& path);        // bpe.cc
std::unique_ptr<Model> MakeWordPiece(const Json& node, const std::string& path);  // wordpiece.cc

std::unique_ptr<Model> MakeModel(const Json& node, const std::string& path) {
  const std::string type = TypeOf(node, path);
  if (type == "BPE") return MakeBpe(node, path);
  if (type == "WordPiece") return MakeWordPiece(node, path);
  FieldError(path + ".type", "unsupported model '" + type + "' (supported: BPE, WordPiece)");
}

}  // namespace triton_studio::tok
