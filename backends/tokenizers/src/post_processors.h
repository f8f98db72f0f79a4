// Post-processors: add the model's special tokens around an encoded sequence (TemplateProcessing,
// BertProcessing, RobertaProcessing); ByteLevel only adjusts offsets in HF, so ids pass through.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "json_fields.h"

namespace triton_studio::tok {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Number of ids Process adds to a single sequence (HF subtracts it before truncating).
  virtual size_t AddedCount() const = 0;
  virtual void Process(std::vector<uint32_t>& ids) const = 0;
};

std::unique_ptr<PostProcessor> MakePostProcessor(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
