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
  // True when Normalize would leave `text` (valid UTF-8) as it is, found without copying it (false:
  // not known). Each character decides alone, so it holds for any part of such a text too.
  virtual bool Keeps(std::string_view) const { return false; }
};

// Builds the normalizer described by a tokenizer.json node; throws TokenizerError naming the
// field for anything unsupported. `path` is the node's location for messages.
std::unique_ptr<Normalizer> MakeNormalizer(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
