// Normalizers: the first stage of HF's pipeline, applied to each piece of input text that is not
// an added token. Each class mirrors the HF normalizer of the same name.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "json_fields.h"

namespace triton_studio::tok {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Replaces `text` (valid UTF-8) by its normalized form.
  virtual void Normalize(std::string& text) const = 0;
};

// Builds the normalizer described by a tokenizer.json node; throws TokenizerError naming the
// field for anything unsupported. `path` is the node's location for messages.
std::unique_ptr<Normalizer> MakeNormalizer(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
