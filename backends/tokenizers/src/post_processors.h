// Post-processors: add the model's special tokens around an encoded sequence or pair of sequences
// and set their type ids (TemplateProcessing, BertProcessing, RobertaProcessing); ByteLevel only
// adjusts offsets in HF, so ids pass through.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "json_fields.h"

namespace triton_studio::tok {

// A run of ids with their type ids, as HF's process_encodings passes Encodings from processor to
// processor: [A] or [A, B] on entry (type ids 0 and 1), the pieces of the result on exit.
struct Segment {
  std::vector<uint32_t> ids;
  std::vector<uint32_t> type_ids;
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Number of ids added to a single sequence or to a pair (HF subtracts it before truncating).
  virtual size_t AddedCount(bool pair) const = 0;
  size_t AddedCount() const { return AddedCount(false); }
  // The single-sequence template with special tokens, ids only (the plain Encode path).
  virtual void Process(std::vector<uint32_t>& ids) const = 0;
  // HF process_encodings: rewrites the segments (type ids set even without special tokens where
  // HF sets them).
  virtual void ProcessSegments(std::vector<Segment>& segments, bool add_special_tokens) const = 0;
};

std::unique_ptr<PostProcessor> MakePostProcessor(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
