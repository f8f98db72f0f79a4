#include "triton_studio/glue.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <sstream>

namespace triton_studio::glue {

void Check(TRITONSERVER_Error* err, const char* what) {
  if (err == nullptr) return;
  std::string message = std::string(what) + ": " + TRITONSERVER_ErrorMessage(err);
  TRITONSERVER_Error_Code code = TRITONSERVER_ErrorCode(err);
  TRITONSERVER_ErrorDelete(err);
  throw BackendError(message, code);
}

TRITONSERVER_Error* CurrentExceptionToError(const std::string& context) {
  std::string prefix = context.empty() ? "" : context + ": ";
  try {
    throw;
  } catch (const BackendError& e) {
    return TRITONSERVER_ErrorNew(e.code(), (prefix + e.what()).c_str());
  } catch (const std::bad_alloc&) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, (prefix + "out of memory").c_str());
  } catch (const std::exception& e) {
    // Library exceptions (tokenizer errors, JSON errors) describe bad input or data.
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INVALID_ARG, (prefix + e.what()).c_str());
  } catch (...) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, (prefix + "unknown error").c_str());
  }
}

void Log(TRITONSERVER_LogLevel level, const char* file, int line, const std::string& message) {
  if (!TRITONSERVER_LogIsEnabled(level)) return;
  TRITONSERVER_Error* err = TRITONSERVER_LogMessage(level, file, line, message.c_str());
  if (err != nullptr) TRITONSERVER_ErrorDelete(err);
}

// --- data types ------------------------------------------------------------------------------

namespace {
struct TypeInfo {
  TRITONSERVER_DataType dtype;
  const char* name;
  size_t size;
};
constexpr TypeInfo kTypes[] = {
    {TRITONSERVER_TYPE_BOOL, "BOOL", 1},     {TRITONSERVER_TYPE_UINT8, "UINT8", 1},
    {TRITONSERVER_TYPE_UINT16, "UINT16", 2}, {TRITONSERVER_TYPE_UINT32, "UINT32", 4},
    {TRITONSERVER_TYPE_UINT64, "UINT64", 8}, {TRITONSERVER_TYPE_INT8, "INT8", 1},
    {TRITONSERVER_TYPE_INT16, "INT16", 2},   {TRITONSERVER_TYPE_INT32, "INT32", 4},
    {TRITONSERVER_TYPE_INT64, "INT64", 8},   {TRITONSERVER_TYPE_FP16, "FP16", 2},
    {TRITONSERVER_TYPE_FP32, "FP32", 4},     {TRITONSERVER_TYPE_FP64, "FP64", 8},
    {TRITONSERVER_TYPE_BYTES, "BYTES", 0},   {TRITONSERVER_TYPE_BF16, "BF16", 2},
};
}  // namespace

TRITONSERVER_DataType ParseDataType(const std::string& name) {
  std::string bare = name.rfind("TYPE_", 0) == 0 ? name.substr(5) : name;
  if (bare == "STRING") return TRITONSERVER_TYPE_BYTES;
  for (const auto& t : kTypes) {
    if (bare == t.name) return t.dtype;
  }
  return TRITONSERVER_TYPE_INVALID;
}

const char* DataTypeName(TRITONSERVER_DataType dtype) {
  for (const auto& t : kTypes) {
    if (t.dtype == dtype) return t.name;
  }
  return "INVALID";
}

bool IsIntegerType(TRITONSERVER_DataType dtype) {
  switch (dtype) {
    case TRITONSERVER_TYPE_UINT8:
    case TRITONSERVER_TYPE_UINT16:
    case TRITONSERVER_TYPE_UINT32:
    case TRITONSERVER_TYPE_UINT64:
    case TRITONSERVER_TYPE_INT8:
    case TRITONSERVER_TYPE_INT16:
    case TRITONSERVER_TYPE_INT32:
    case TRITONSERVER_TYPE_INT64:
      return true;
    default:
      return false;
  }
}

size_t DataTypeByteSize(TRITONSERVER_DataType dtype) {
  for (const auto& t : kTypes) {
    if (t.dtype == dtype) return t.size;
  }
  return 0;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
  out << ']';
  return out.str();
}

std::vector<int64_t> WithBatch(bool batching, int64_t rows, std::vector<int64_t> dims) {
  if (batching) dims.insert(dims.begin(), rows);
  return dims;
}

// --- model configuration -----------------------------------------------------------------------

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

ModelConfig ReadModelConfig(TRITONBACKEND_Model* model) {
  TRITONSERVER_Message* message = nullptr;
  Check(TRITONBACKEND_ModelConfig(model, 1, &message), "reading the model configuration");
  std::unique_ptr<TRITONSERVER_Message, void (*)(TRITONSERVER_Message*)> owned(
      message, [](TRITONSERVER_Message* m) {
        if (TRITONSERVER_Error* err = TRITONSERVER_MessageDelete(m)) TRITONSERVER_ErrorDelete(err);
      });
  const char* base = nullptr;
  size_t size = 0;
  Check(TRITONSERVER_MessageSerializeToJson(message, &base, &size), "serializing the model configuration");

  ModelConfig config;
  config.json = nlohmann::json::parse(base, base + size);
  config.name = config.json.value("name", std::string());
  // protobuf JSON writes int64 values as strings; max_batch_size is int32 so it is a number.
  auto mbs = config.json.find("max_batch_size");
  if (mbs != config.json.end() && mbs->is_number_integer()) config.max_batch_size = mbs->get<int64_t>();
  auto policy = config.json.find("model_transaction_policy");
  if (policy != config.json.end() && policy->is_object()) config.decoupled = policy->value("decoupled", false);
  return config;
}

std::string ModelVersionDirectory(TRITONBACKEND_Model* model) {
  TRITONBACKEND_ArtifactType type;
  const char* location = nullptr;
  Check(TRITONBACKEND_ModelRepository(model, &type, &location), "locating the model repository");
  if (type != TRITONBACKEND_ARTIFACT_FILESYSTEM) {
    throw BackendError("model artifacts are not on a file system", TRITONSERVER_ERROR_UNSUPPORTED);
  }
  uint64_t version = 0;
  Check(TRITONBACKEND_ModelVersion(model, &version), "reading the model version");
  return std::string(location) + "/" + std::to_string(version);
}

// --- request inputs ----------------------------------------------------------------------------

int64_t InputTensor::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::vector<std::string> InputTensor::Strings() const {
  if (dtype != TRITONSERVER_TYPE_BYTES) {
    throw BackendError("input '" + name + "' must be BYTES (STRING), got " + DataTypeName(dtype));
  }
  const int64_t count = ElementCount();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(count));
  size_t pos = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (data.size() - pos < 4) {
      throw BackendError("input '" + name + "': BYTES element " + std::to_string(i) +
                         " is truncated (each element needs a 4-byte length prefix)");
    }
    const auto* p = reinterpret_cast<const unsigned char*>(data.data() + pos);
    const uint32_t len = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    pos += 4;
    if (data.size() - pos < len) {
      throw BackendError("input '" + name + "': BYTES element " + std::to_string(i) + " declares " +
                         std::to_string(len) + " bytes but only " + std::to_string(data.size() - pos) +
                         " remain");
    }
    out.emplace_back(data.data() + pos, len);
    pos += len;
  }
  if (pos != data.size()) {
    throw BackendError("input '" + name + "': " + std::to_string(data.size() - pos) +
                       " bytes left over after " + std::to_string(count) + " BYTES elements of shape " +
                       ShapeToString(shape));
  }
  return out;
}

namespace {
template <class T>
void Widen(const std::vector<char>& data, std::vector<int64_t>* out) {
  const size_t n = data.size() / sizeof(T);
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw BackendError("UINT64 value " + std::to_string(v) + " is too large");
      }
    }
    (*out)[i] = static_cast<int64_t>(v);
  }
}

template <class T>
void Narrow(const std::string& name, const std::vector<int64_t>& values, std::vector<char>* out) {
  out->resize(values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = values[i];
    if constexpr (std::is_signed_v<T>) {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
        throw BackendError("output '" + name + "': value " + std::to_string(v) + " does not fit its data type");
      }
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) {
        throw BackendError("output '" + name + "': value " + std::to_string(v) +
                           " does not fit its unsigned data type");
      }
    }
    const T t = static_cast<T>(v);
    std::memcpy(out->data() + i * sizeof(T), &t, sizeof(T));
  }
}
}  // namespace

std::vector<int64_t> InputTensor::Integers() const {
  std::vector<int64_t> out;
  const size_t size = DataTypeByteSize(dtype);
  if (!IsIntegerType(dtype)) {
    throw BackendError("input '" + name + "' must hold integers, got " + DataTypeName(dtype));
  }
  if (data.size() != static_cast<size_t>(ElementCount()) * size) {
    throw BackendError("input '" + name + "' has " + std::to_string(data.size()) + " bytes, expected " +
                       std::to_string(ElementCount() * size) + " for shape " + ShapeToString(shape));
  }
  try {
    switch (dtype) {
      case TRITONSERVER_TYPE_UINT8: Widen<uint8_t>(data, &out); break;
      case TRITONSERVER_TYPE_UINT16: Widen<uint16_t>(data, &out); break;
      case TRITONSERVER_TYPE_UINT32: Widen<uint32_t>(data, &out); break;
      case TRITONSERVER_TYPE_UINT64: Widen<uint64_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT8: Widen<int8_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT16: Widen<int16_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT32: Widen<int32_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT64: Widen<int64_t>(data, &out); break;
      default: break;
    }
  } catch (const BackendError& e) {
    throw BackendError("input '" + name + "': " + e.what());
  }
  return out;
}

std::vector<double> InputTensor::Floats() const {
  if (dtype != TRITONSERVER_TYPE_FP32 && dtype != TRITONSERVER_TYPE_FP64) {
    throw BackendError("input '" + name + "' must hold FP32 or FP64 values, got " + DataTypeName(dtype));
  }
  const size_t size = DataTypeByteSize(dtype);
  if (data.size() != static_cast<size_t>(ElementCount()) * size) {
    throw BackendError("input '" + name + "' has " + std::to_string(data.size()) + " bytes, expected " +
                       std::to_string(ElementCount() * size) + " for shape " + ShapeToString(shape));
  }
  std::vector<double> out(data.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    if (dtype == TRITONSERVER_TYPE_FP32) {
      float f = 0;
      std::memcpy(&f, data.data() + i * size, size);
      out[i] = f;
    } else {
      std::memcpy(&out[i], data.data() + i * size, size);
    }
  }
  return out;
}

std::string RequestId(TRITONBACKEND_Request* request) {
  const char* id = nullptr;
  Check(TRITONBACKEND_RequestId(request, &id), "TRITONBACKEND_RequestId");
  return id ? id : "";
}

std::optional<InputTensor> ReadInput(TRITONBACKEND_Request* request, const std::string& name) {
  // Absence is a normal case for optional inputs, so look the name up instead of relying on
  // TRITONBACKEND_RequestInput's error.
  uint32_t count = 0;
  Check(TRITONBACKEND_RequestInputCount(request, &count), "counting request inputs");
  bool present = false;
  for (uint32_t i = 0; i < count && !present; ++i) {
    const char* input_name = nullptr;
    Check(TRITONBACKEND_RequestInputName(request, i, &input_name), "reading an input name");
    present = name == input_name;
  }
  if (!present) return std::nullopt;

  TRITONBACKEND_Input* input = nullptr;
  Check(TRITONBACKEND_RequestInput(request, name.c_str(), &input), "reading an input");
  InputTensor tensor;
  tensor.name = name;
  const int64_t* shape = nullptr;
  uint32_t dims = 0;
  uint64_t byte_size = 0;
  uint32_t buffers = 0;
  Check(TRITONBACKEND_InputProperties(input, nullptr, &tensor.dtype, &shape, &dims, &byte_size, &buffers),
        "reading input properties");
  tensor.shape.assign(shape, shape + dims);
  tensor.data.reserve(byte_size);
  for (uint32_t b = 0; b < buffers; ++b) {
    const void* buffer = nullptr;
    uint64_t size = 0;
    TRITONSERVER_MemoryType memory_type = TRITONSERVER_MEMORY_CPU;
    int64_t memory_type_id = 0;
    Check(TRITONBACKEND_InputBuffer(input, b, &buffer, &size, &memory_type, &memory_type_id),
          "reading an input buffer");
    if (memory_type == TRITONSERVER_MEMORY_GPU) {
      throw BackendError("input '" + name + "' is in GPU memory; this CPU step needs it in host memory",
                         TRITONSERVER_ERROR_UNSUPPORTED);
    }
    const char* bytes = static_cast<const char*>(buffer);
    tensor.data.insert(tensor.data.end(), bytes, bytes + size);
  }
  return tensor;
}

InputTensor ReadRequiredInput(TRITONBACKEND_Request* request, const std::string& name) {
  auto tensor = ReadInput(request, name);
  if (!tensor) throw BackendError("the request has no input '" + name + "', which this model requires");
  return std::move(*tensor);
}

std::set<std::string> RequestedOutputs(TRITONBACKEND_Request* request) {
  uint32_t count = 0;
  Check(TRITONBACKEND_RequestOutputCount(request, &count), "counting requested outputs");
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    Check(TRITONBACKEND_RequestOutputName(request, i, &name), "reading a requested output name");
    names.insert(name);
  }
  return names;
}

// --- response outputs --------------------------------------------------------------------------

OutputTensor OutputTensor::Integers(const std::string& name, TRITONSERVER_DataType dtype, std::vector<int64_t> shape,
                                    const std::vector<int64_t>& values) {
  OutputTensor out;
  out.name = name;
  out.dtype = dtype;
  out.shape = std::move(shape);
  switch (dtype) {
    case TRITONSERVER_TYPE_UINT8: Narrow<uint8_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_UINT16: Narrow<uint16_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_UINT32: Narrow<uint32_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_UINT64: Narrow<uint64_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT8: Narrow<int8_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT16: Narrow<int16_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT32: Narrow<int32_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT64: Narrow<int64_t>(name, values, &out.data); break;
    default:
      throw BackendError(std::string("output '") + name + "' is declared " + DataTypeName(dtype) +
                             "; it must be an integer type",
                         TRITONSERVER_ERROR_INTERNAL);
  }
  return out;
}

OutputTensor OutputTensor::Floats(const std::string& name, TRITONSERVER_DataType dtype, std::vector<int64_t> shape,
                                  const std::vector<double>& values) {
  OutputTensor out;
  out.name = name;
  out.dtype = dtype;
  out.shape = std::move(shape);
  if (dtype == TRITONSERVER_TYPE_FP32) {
    out.data.resize(values.size() * sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = static_cast<float>(values[i]);
      std::memcpy(out.data.data() + i * sizeof(float), &f, sizeof(float));
    }
  } else if (dtype == TRITONSERVER_TYPE_FP64) {
    out.data.resize(values.size() * sizeof(double));
    if (!values.empty()) std::memcpy(out.data.data(), values.data(), out.data.size());
  } else {
    throw BackendError(std::string("output '") + name + "' is declared " + DataTypeName(dtype) +
                           "; it must be FP32 or FP64",
                       TRITONSERVER_ERROR_INTERNAL);
  }
  return out;
}

OutputTensor OutputTensor::Strings(const std::string& name, std::vector<int64_t> shape,
                                   const std::vector<std::string>& values) {
  OutputTensor out;
  out.name = name;
  out.dtype = TRITONSERVER_TYPE_BYTES;
  out.shape = std::move(shape);
  size_t total = 0;
  for (const auto& v : values) total += 4 + v.size();
  out.data.reserve(total);
  for (const auto& v : values) {
    if (v.size() > std::numeric_limits<uint32_t>::max()) {
      throw BackendError("output '" + name + "': a string longer than 4 GiB cannot be sent");
    }
    const uint32_t len = static_cast<uint32_t>(v.size());
    const char prefix[4] = {char(len & 0xff), char((len >> 8) & 0xff), char((len >> 16) & 0xff),
                            char((len >> 24) & 0xff)};
    out.data.insert(out.data.end(), prefix, prefix + 4);
    out.data.insert(out.data.end(), v.begin(), v.end());
  }
  return out;
}

void WriteOutputs(TRITONBACKEND_Response* response, const std::vector<OutputTensor>& outputs) {
  for (const auto& tensor : outputs) {
    TRITONBACKEND_Output* output = nullptr;
    Check(TRITONBACKEND_ResponseOutput(response, &output, tensor.name.c_str(), tensor.dtype, tensor.shape.data(),
                                       static_cast<uint32_t>(tensor.shape.size())),
          ("creating output '" + tensor.name + "'").c_str());
    void* buffer = nullptr;
    TRITONSERVER_MemoryType memory_type = TRITONSERVER_MEMORY_CPU;
    int64_t memory_type_id = 0;
    Check(TRITONBACKEND_OutputBuffer(output, &buffer, tensor.data.size(), &memory_type, &memory_type_id),
          ("allocating output '" + tensor.name + "'").c_str());
    if (memory_type == TRITONSERVER_MEMORY_GPU) {
      throw BackendError("the server gave output '" + tensor.name + "' a GPU buffer; this CPU step needs host memory",
                         TRITONSERVER_ERROR_UNSUPPORTED);
    }
    if (!tensor.data.empty()) std::memcpy(buffer, tensor.data.data(), tensor.data.size());
  }
}

namespace {
void LogIfError(TRITONSERVER_Error* err, const char* what) {
  if (err == nullptr) return;
  TS_LOG(TRITONSERVER_LOG_ERROR, std::string(what) + ": " + TRITONSERVER_ErrorMessage(err));
  TRITONSERVER_ErrorDelete(err);
}
}  // namespace

void SendError(TRITONBACKEND_Request* request, TRITONSERVER_Error* error) {
  TRITONBACKEND_Response* response = nullptr;
  TRITONSERVER_Error* err = TRITONBACKEND_ResponseNew(&response, request);
  if (err != nullptr) {
    LogIfError(err, "creating an error response");
    TS_LOG(TRITONSERVER_LOG_ERROR, std::string("undeliverable error: ") + TRITONSERVER_ErrorMessage(error));
    TRITONSERVER_ErrorDelete(error);
    return;
  }
  LogIfError(TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, error),
             "sending an error response");
  TRITONSERVER_ErrorDelete(error);  // ResponseSend does not take ownership of the error
}

bool SendResponse(TRITONBACKEND_Request* request, const std::vector<OutputTensor>& outputs) {
  TRITONBACKEND_Response* response = nullptr;
  TRITONSERVER_Error* err = TRITONBACKEND_ResponseNew(&response, request);
  if (err != nullptr) {
    LogIfError(err, "creating a response");
    return false;
  }
  try {
    WriteOutputs(response, outputs);
  } catch (...) {
    // A half-built response must not be sent: drop it and answer with the error instead.
    LogIfError(TRITONBACKEND_ResponseDelete(response), "deleting a partial response");
    SendError(request, CurrentExceptionToError(""));
    return false;
  }
  TRITONSERVER_Error* send_err = TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, nullptr);
  const bool sent = send_err == nullptr;
  LogIfError(send_err, "sending a response");
  return sent;
}

void ReleaseRequest(TRITONBACKEND_Request* request) {
  LogIfError(TRITONBACKEND_RequestRelease(request, TRITONSERVER_REQUEST_RELEASE_ALL), "releasing a request");
}

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// --- per-request execution -------------------------------------------------------------------------

void ExecuteEach(TRITONBACKEND_ModelInstance* instance, const std::string& model_name,
                 TRITONBACKEND_Request** requests, uint32_t count,
                 const std::function<RequestResult(TRITONBACKEND_Request*)>& handler) {
  const uint64_t exec_start = NowNs();
  uint64_t batch_size = 0;
  uint64_t compute_start = exec_start, compute_end = exec_start;
  for (uint32_t i = 0; i < count; ++i) {
    TRITONBACKEND_Request* request = requests[i];
    const uint64_t request_start = NowNs();
    bool success = false;
    try {
      RequestResult result = handler(request);
      const uint64_t request_computed = NowNs();
      success = SendResponse(request, result.outputs);
      if (success) {
        batch_size += result.batch_size;
        compute_end = request_computed;
        LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, request, true, exec_start, request_start,
                                                               request_computed, NowNs()),
                   "reporting request statistics");
      }
    } catch (...) {
      SendError(request, CurrentExceptionToError("model '" + model_name + "'"));
    }
    if (!success) {
      LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, request, false, exec_start, request_start,
                                                             NowNs(), NowNs()),
                 "reporting request statistics");
    }
    ReleaseRequest(request);
  }
  if (batch_size > 0) {
    LogIfError(TRITONBACKEND_ModelInstanceReportBatchStatistics(instance, batch_size, exec_start, compute_start,
                                                                compute_end, NowNs()),
               "reporting batch statistics");
  }
}

// --- backend entry points ------------------------------------------------------------------------

namespace entry {

TRITONSERVER_Error* Initialize(TRITONBACKEND_Backend* backend) {
  const char* name = "?";
  if (TRITONSERVER_Error* err = TRITONBACKEND_BackendName(backend, &name)) TRITONSERVER_ErrorDelete(err);
  uint32_t major = 0, minor = 0;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ApiVersion(&major, &minor)) return err;
  if (major != TS_TRITONBACKEND_API_MAJOR || minor < TS_TRITONBACKEND_API_MINOR) {
    std::ostringstream message;
    message << "backend '" << name << "' was built for TRITONBACKEND API " << TS_TRITONBACKEND_API_MAJOR << "."
            << TS_TRITONBACKEND_API_MINOR << " but this server provides " << major << "." << minor
            << "; use Triton 2.51 or newer with the same major API version, or rebuild the backend";
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNSUPPORTED, message.str().c_str());
  }
  TS_LOG(TRITONSERVER_LOG_INFO, std::string("Triton Studio backend '") + name + "' initialized (TRITONBACKEND API " +
                                    std::to_string(major) + "." + std::to_string(minor) + ")");
  return nullptr;
}

TRITONSERVER_Error* ModelInitialize(TRITONBACKEND_Model* model, ModelFactory factory) {
  const char* name = "?";
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelName(model, &name)) TRITONSERVER_ErrorDelete(err);
  try {
    std::unique_ptr<BackendModel> state = factory(model);
    Check(TRITONBACKEND_ModelSetState(model, state.get()), "storing the model state");
    state.release();  // owned by Triton's model object until ModelFinalize
    return nullptr;
  } catch (...) {
    return CurrentExceptionToError(std::string("cannot load model '") + name + "'");
  }
}

TRITONSERVER_Error* ModelFinalize(TRITONBACKEND_Model* model) {
  void* state = nullptr;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelState(model, &state)) return err;
  delete static_cast<BackendModel*>(state);
  return nullptr;
}

TRITONSERVER_Error* ModelInstanceExecute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests,
                                         uint32_t count) {
  // Returning an error here would hand the requests back to Triton; everything after this point
  // answers and releases each request itself instead.
  TRITONBACKEND_Model* model = nullptr;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelInstanceModel(instance, &model)) return err;
  void* state = nullptr;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelState(model, &state)) return err;
  if (state == nullptr) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "model state missing (ModelInitialize failed?)");
  }
  try {
    static_cast<BackendModel*>(state)->Execute(instance, requests, count);
  } catch (...) {
    // Execute answers requests itself and is written not to throw; should it anyway, an exception
    // must not cross into the server (that would abort it). Some requests may be released already,
    // so handing them back with an error is not an option either: log and go on.
    TRITONSERVER_Error* err = CurrentExceptionToError("unexpected failure in Execute");
    TS_LOG(TRITONSERVER_LOG_ERROR, TRITONSERVER_ErrorMessage(err));
    TRITONSERVER_ErrorDelete(err);
  }
  return nullptr;
}

}  // namespace entry

}  // namespace triton_studio::glue
