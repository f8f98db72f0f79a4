// A model's configuration as Triton hands it to the backend (protobuf JSON), and where the
// model's files are. Reading the JSON is separate from asking the server for it, so the
// accessors are unit-tested without a server.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

struct ModelConfig {
  std::string name;
  int64_t max_batch_size = 0;
  bool decoupled = false;
  nlohmann::json json;  // the whole ModelConfig as Triton reports it (protobuf JSON)

  // Builds the config from Triton's protobuf JSON (throws on malformed JSON).
  static ModelConfig FromJson(const char* begin, const char* end);

  bool batching() const { return max_batch_size > 0; }
  // parameters { key: "k" value { string_value: "v" } }; nullopt when absent.
  std::optional<std::string> Parameter(const std::string& key) const;
  bool BoolParameter(const std::string& key, bool default_value) const;
  double NumberParameter(const std::string& key, double default_value) const;
  // The data type the config declares for an input/output tensor; INVALID when not declared.
  TRITONSERVER_DataType TensorDataType(const std::string& name, bool output) const;
  bool HasTensor(const std::string& name, bool output) const;
};

// `text` as a non-negative number, else a BackendError naming the model and parameter.
double NumberParameterValue(const std::string& model, const std::string& key, const std::string& text);

// --- asking the server ---------------------------------------------------------------------------
ModelConfig ReadModelConfig(TRITONBACKEND_Model* model);
// "<model repository path>/<version>": where Triton Studio ships a model's data files.
std::string ModelVersionDirectory(TRITONBACKEND_Model* model);

}  // namespace triton_studio::glue
