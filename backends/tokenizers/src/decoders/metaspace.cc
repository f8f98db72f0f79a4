// HF's Metaspace decoder: the replacement character back to a space.
#include "decoders/stages.h"

#include "component_table.h"

namespace triton_studio::tok::decoders {
namespace {

// Metaspace: the replacement character becomes a space, except in the first token (after a
// fusing stage: in every chunk) where, unless the prepend scheme is "never", it is dropped.
class MetaspaceStage final : public TokenLocalStage {
 public:
  MetaspaceStage(std::string replacement, bool strip_first, bool fused)
      : replacement_(std::move(replacement)), strip_first_(strip_first), fused_(fused) {}
  bool FirstDiffers() const override { return strip_first_ && !fused_; }
  std::string MapToken(std::string_view token, bool first) const override {
    std::string r;
    ReplaceAll(token, replacement_, (first || fused_) && strip_first_ ? "" : " ", r);
    return r;
  }

 private:
  std::string replacement_;
  bool strip_first_, fused_;
};

}  // namespace

void BuildMetaspace(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  AllowOnlyKeys(node, path, {"replacement", "prepend_scheme", "add_prefix_space", "split", "str_rep"});
  bool strip_first = GetBool(node, "add_prefix_space", path, true);
  if (const Json* s = Find(node, "prepend_scheme")) {
    if (!s->is_string()) FieldError(path + ".prepend_scheme", "expected a string");
    const auto v = s->get<std::string>();
    if (v != "always" && v != "first" && v != "never")
      FieldError(path + ".prepend_scheme", "unsupported value '" + v + "'");
    strip_first = v != "never";
  }
  stages.push_back(std::make_unique<MetaspaceStage>(GetString(node, "replacement", path), strip_first, fused));
}

}  // namespace triton_studio::tok::decoders
