// What the tokenize and detokenize steps share: checking the generated spec against the model
// config Triton loaded, loading the tokenizer once per model, and batch-row arithmetic.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "triton_studio/glue.h"
#include "triton_studio/steps.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

// Throws a BackendError naming the tensor when config.pbtxt does not declare `spec` as the
// generated step expects (missing, or another data type).
void CheckTensorDeclared(const glue::ModelConfig& config, const TensorSpec& spec, bool output);

// Logs when config.pbtxt's max_batch_size differs from the one the step was generated with (the
// config wins: it is what Triton batches by).
void NoteBatchSizeDifference(const glue::ModelConfig& config, int64_t generated_max_batch_size);

// Loads <model version dir>/<file> once per model.
std::shared_ptr<const tok::Tokenizer> LoadTokenizer(TRITONBACKEND_Model* model, const std::string& file);

// Rows of a request tensor: its first dimension when the model batches, else 1. Throws when the
// elements do not split evenly into rows.
struct Rows {
  int64_t rows = 0;
  int64_t per_row = 0;
};
Rows SplitRows(const glue::InputTensor& tensor, bool batching);

}  // namespace triton_studio::steps
