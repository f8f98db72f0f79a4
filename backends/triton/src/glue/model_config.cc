// Model configuration accessors (see glue/model_config.h). No server calls.
#include "triton_studio/glue/model_config.h"

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/errors.h"

namespace triton_studio::glue {

ModelConfig ModelConfig::FromJson(const char* begin, const char* end) {
  ModelConfig config;
  config.json = nlohmann::json::parse(begin, end);
  config.name = config.json.value("name", std::string());
  // protobuf JSON writes int64 values as strings; max_batch_size is int32 so it is a number.
  auto mbs = config.json.find("max_batch_size");
  if (mbs != config.json.end() && mbs->is_number_integer()) config.max_batch_size = mbs->get<int64_t>();
  auto policy = config.json.find("model_transaction_policy");
  if (policy != config.json.end() && policy->is_object()) config.decoupled = policy->value("decoupled", false);
  return config;
}

std::optional<std::string> ModelConfig::Parameter(const std::string& key) const {
  auto params = json.find("parameters");
  if (params == json.end() || !params->is_object()) return std::nullopt;
  auto entry = params->find(key);
  if (entry == params->end()) return std::nullopt;
  auto value = entry->find("string_value");
  if (value == entry->end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

bool ModelConfig::BoolParameter(const std::string& key, bool default_value) const {
  auto value = Parameter(key);
  if (!value) return default_value;
  if (*value == "true" || *value == "True" || *value == "1") return true;
  if (*value == "false" || *value == "False" || *value == "0") return false;
  throw BackendError("model '" + name + "': parameter '" + key + "' must be \"true\" or \"false\", got \"" +
                     *value + "\"");
}

double NumberParameterValue(const std::string& model, const std::string& key, const std::string& text) {
  try {
    size_t used = 0;
    double value = std::stod(text, &used);
    if (used == text.size() && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw BackendError("model '" + model + "': parameter '" + key + "' must be a non-negative number, got \"" + text +
                     "\"");
}

double ModelConfig::NumberParameter(const std::string& key, double default_value) const {
  auto value = Parameter(key);
  return value ? NumberParameterValue(name, key, *value) : default_value;
}

namespace {
const nlohmann::json* FindTensor(const nlohmann::json& config, const std::string& name, bool output) {
  auto list = config.find(output ? "output" : "input");
  if (list == config.end() || !list->is_array()) return nullptr;
  for (const auto& tensor : *list) {
    auto tensor_name = tensor.find("name");
    if (tensor_name != tensor.end() && tensor_name->is_string() && tensor_name->get<std::string>() == name) {
      return &tensor;
    }
  }
  return nullptr;
}
}  // namespace

TRITONSERVER_DataType ModelConfig::TensorDataType(const std::string& tensor, bool output) const {
  const nlohmann::json* t = FindTensor(json, tensor, output);
  if (t == nullptr) return TRITONSERVER_TYPE_INVALID;
  auto dtype = t->find("data_type");
  if (dtype == t->end() || !dtype->is_string()) return TRITONSERVER_TYPE_INVALID;
  return ParseDataType(dtype->get<std::string>());
}

bool ModelConfig::HasTensor(const std::string& tensor, bool output) const {
  return FindTensor(json, tensor, output) != nullptr;
}

}  // namespace triton_studio::glue
