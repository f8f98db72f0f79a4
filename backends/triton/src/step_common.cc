// What the tokenize and detokenize steps share (see step_common.h).
#include "step_common.h"

namespace triton_studio::steps {

using glue::BackendError;

void CheckTensorDeclared(const glue::ModelConfig& config, const TensorSpec& spec, bool output) {
  const char* kind = output ? "output" : "input";
  if (!config.HasTensor(spec.name, output)) {
    throw BackendError(std::string("config.pbtxt has no ") + kind + " '" + spec.name +
                       "', which the generated step uses; regenerate the repository so the config and "
                       "the step's source agree");
  }
  const TRITONSERVER_DataType declared = config.TensorDataType(spec.name, output);
  if (declared != spec.dtype) {
    throw BackendError(std::string("config.pbtxt declares ") + kind + " '" + spec.name + "' as " +
                       glue::DataTypeName(declared) + " but the generated step was built for " +
                       glue::DataTypeName(spec.dtype) + "; regenerate and rebuild the step");
  }
}

void NoteBatchSizeDifference(const glue::ModelConfig& config, int64_t generated_max_batch_size) {
  if (config.max_batch_size == generated_max_batch_size) return;
  TS_LOG(TRITONSERVER_LOG_WARN, "model '" + config.name + "': config.pbtxt has max_batch_size " +
                                    std::to_string(config.max_batch_size) + " but the step was generated with " +
                                    std::to_string(generated_max_batch_size) + "; using the config's value");
}

std::shared_ptr<const tok::Tokenizer> LoadTokenizer(TRITONBACKEND_Model* model, const std::string& file) {
  const std::string path = glue::ModelVersionDirectory(model) + "/" + file;
  try {
    return std::shared_ptr<const tok::Tokenizer>(tok::Tokenizer::FromFile(path));
  } catch (const std::exception& e) {
    throw BackendError("cannot load tokenizer '" + path + "': " + e.what() +
                           " (the tokenizer file ships in the model's version folder; regenerate the repository)",
                       TRITONSERVER_ERROR_INVALID_ARG);
  }
}

Rows SplitRows(const glue::InputTensor& tensor, bool batching) {
  Rows r;
  const int64_t elements = tensor.ElementCount();
  if (batching) {
    if (tensor.shape.empty()) {
      throw BackendError("input '" + tensor.name + "' has no batch dimension (shape [])");
    }
    r.rows = tensor.shape[0];
  } else {
    r.rows = 1;
  }
  if (r.rows <= 0) throw BackendError("input '" + tensor.name + "' has an empty batch");
  r.per_row = elements / r.rows;
  return r;
}

}  // namespace triton_studio::steps
