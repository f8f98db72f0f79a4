// Thin C++ layer over the TRITONBACKEND C API shared by every Triton Studio backend (the
// generated tokenize/detokenize steps and sim-llm): errors as exceptions inside, TRITONSERVER_Error
// at the C boundary; model config access; tensors read into contiguous host memory; outputs
// built first and written into a response only when a request has fully succeeded, so a bad
// request gets exactly one clean error response.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

// An error with a Triton error code. Thrown anywhere inside a backend; the entry points and the
// per-request loop turn it into a TRITONSERVER_Error (model load failure or error response).
class BackendError : public std::runtime_error {
 public:
  explicit BackendError(const std::string& message, TRITONSERVER_Error_Code code = TRITONSERVER_ERROR_INVALID_ARG)
      : std::runtime_error(message), code_(code) {}
  TRITONSERVER_Error_Code code() const { return code_; }

 private:
  TRITONSERVER_Error_Code code_;
};

// Throws BackendError (taking ownership of `err`) when a Triton call failed.
void Check(TRITONSERVER_Error* err, const char* what);

// The currently handled exception as a new TRITONSERVER_Error (call inside a catch block).
TRITONSERVER_Error* CurrentExceptionToError(const std::string& context);

void Log(TRITONSERVER_LogLevel level, const char* file, int line, const std::string& message);
#define TS_LOG(level, message) ::triton_studio::glue::Log(level, __FILE__, __LINE__, (message))

// --- data types ------------------------------------------------------------------------------
// "TYPE_UINT32" / "UINT32" (config spelling) / "BYTES" / "STRING" -> the enum; INVALID if unknown.
TRITONSERVER_DataType ParseDataType(const std::string& name);
// "UINT32", "BYTES", ... (the KServe spelling Triton uses in errors and metadata).
const char* DataTypeName(TRITONSERVER_DataType dtype);
bool IsIntegerType(TRITONSERVER_DataType dtype);
size_t DataTypeByteSize(TRITONSERVER_DataType dtype);  // 0 for BYTES / INVALID
std::string ShapeToString(const std::vector<int64_t>& shape);
// `dims` prefixed with the batch dimension when the model batches (max_batch_size > 0).
std::vector<int64_t> WithBatch(bool batching, int64_t rows, std::vector<int64_t> dims);

// --- model configuration -----------------------------------------------------------------------
struct ModelConfig {
  std::string name;
  int64_t max_batch_size = 0;
  bool decoupled = false;
  nlohmann::json json;  // the whole ModelConfig as Triton reports it (protobuf JSON)

  bool batching() const { return max_batch_size > 0; }
  // parameters { key: "k" value { string_value: "v" } }; nullopt when absent.
  std::optional<std::string> Parameter(const std::string& key) const;
  bool BoolParameter(const std::string& key, bool default_value) const;
  double NumberParameter(const std::string& key, double default_value) const;
  // The data type the config declares for an input/output tensor; INVALID when not declared.
  TRITONSERVER_DataType TensorDataType(const std::string& name, bool output) const;
  bool HasTensor(const std::string& name, bool output) const;
};

ModelConfig ReadModelConfig(TRITONBACKEND_Model* model);
// "<model repository path>/<version>": where Triton Studio ships a model's data files.
std::string ModelVersionDirectory(TRITONBACKEND_Model* model);

// --- request inputs ----------------------------------------------------------------------------
// One input tensor, gathered into contiguous host memory.
struct InputTensor {
  std::string name;
  TRITONSERVER_DataType dtype = TRITONSERVER_TYPE_INVALID;
  std::vector<int64_t> shape;
  std::vector<char> data;

  int64_t ElementCount() const;
  // BYTES elements (4-byte little-endian length + bytes each); throws on a malformed buffer.
  std::vector<std::string> Strings() const;
  // Any integer dtype widened to int64; throws for other dtypes or UINT64 values above INT64_MAX.
  std::vector<int64_t> Integers() const;
  // FP32 / FP64 elements widened to double; throws for other dtypes.
  std::vector<double> Floats() const;
};

// nullopt when the request does not carry the input (the caller decides if that is an error).
std::optional<InputTensor> ReadInput(TRITONBACKEND_Request* request, const std::string& name);
InputTensor ReadRequiredInput(TRITONBACKEND_Request* request, const std::string& name);
// The request's id as the client sent it ("" when none); an ensemble passes it on to its steps.
std::string RequestId(TRITONBACKEND_Request* request);

// Names of the outputs the request asked for.
std::set<std::string> RequestedOutputs(TRITONBACKEND_Request* request);

// --- response outputs --------------------------------------------------------------------------
struct OutputTensor {
  std::string name;
  TRITONSERVER_DataType dtype = TRITONSERVER_TYPE_INVALID;
  std::vector<int64_t> shape;
  std::vector<char> data;

  // Integers converted to `dtype` with a range check (a negative value into UINT32 throws).
  static OutputTensor Integers(const std::string& name, TRITONSERVER_DataType dtype, std::vector<int64_t> shape,
                               const std::vector<int64_t>& values);
  static OutputTensor Strings(const std::string& name, std::vector<int64_t> shape,
                              const std::vector<std::string>& values);
  // Floating-point values as FP32 or FP64 (the only float dtypes a step writes).
  static OutputTensor Floats(const std::string& name, TRITONSERVER_DataType dtype, std::vector<int64_t> shape,
                             const std::vector<double>& values);
};

// Creates the outputs in `response`. Does not send it.
void WriteOutputs(TRITONBACKEND_Response* response, const std::vector<OutputTensor>& outputs);

// Sends a response with `outputs` for `request` (FINAL); false when it could not (then an error
// response went out instead, or the failure was logged: there is nobody else to tell).
bool SendResponse(TRITONBACKEND_Request* request, const std::vector<OutputTensor>& outputs);
// Sends an error response for `request` (FINAL); takes ownership of `error`.
void SendError(TRITONBACKEND_Request* request, TRITONSERVER_Error* error);
void ReleaseRequest(TRITONBACKEND_Request* request);

uint64_t NowNs();  // steady clock, as the statistics API expects

// --- per-request execution -------------------------------------------------------------------------
struct RequestResult {
  std::vector<OutputTensor> outputs;
  uint64_t batch_size = 1;  // rows this request contributed (for batch statistics)
};

// Runs `handler` for every request of one Execute call. A request whose handler throws gets an
// error response naming the model; the others still succeed. Reports per-request and batch
// statistics and releases every request. Never throws.
void ExecuteEach(TRITONBACKEND_ModelInstance* instance, const std::string& model_name,
                 TRITONBACKEND_Request** requests, uint32_t count,
                 const std::function<RequestResult(TRITONBACKEND_Request*)>& handler);

// --- backend entry points ------------------------------------------------------------------------
// One object per loaded model, created in TRITONBACKEND_ModelInitialize and shared by all its
// instances (so Execute must be safe to call concurrently from different instances).
class BackendModel {
 public:
  virtual ~BackendModel() = default;
  // Must send a response for and release every request; must not throw.
  virtual void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests,
                       uint32_t count) = 0;
};

using ModelFactory = std::unique_ptr<BackendModel> (*)(TRITONBACKEND_Model* model);

namespace entry {
TRITONSERVER_Error* Initialize(TRITONBACKEND_Backend* backend);
TRITONSERVER_Error* ModelInitialize(TRITONBACKEND_Model* model, ModelFactory factory);
TRITONSERVER_Error* ModelFinalize(TRITONBACKEND_Model* model);
TRITONSERVER_Error* ModelInstanceExecute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests,
                                         uint32_t count);
}  // namespace entry

}  // namespace triton_studio::glue

// Entry points must stay visible although backends compile with hidden visibility; the linker
// version script (cmake/backend.ldscript) then exports exactly these.
#define TS_BACKEND_EXPORT __attribute__((visibility("default")))

// Defines the TRITONBACKEND entry points of a backend library whose models are created by
// FACTORY (a function TRITONBACKEND_Model* -> std::unique_ptr<BackendModel>). Use once per .so.
#define TS_TRITON_BACKEND(FACTORY)                                                                     \
  extern "C" {                                                                                         \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_Initialize(TRITONBACKEND_Backend* backend) {                       \
    return ::triton_studio::glue::entry::Initialize(backend);                                          \
  }                                                                                                    \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model* model) {                      \
    return ::triton_studio::glue::entry::ModelInitialize(model, (FACTORY));                            \
  }                                                                                                    \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model* model) {                        \
    return ::triton_studio::glue::entry::ModelFinalize(model);                                         \
  }                                                                                                    \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInstanceExecute(                             \
      TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, const uint32_t request_count) { \
    return ::triton_studio::glue::entry::ModelInstanceExecute(instance, requests, request_count);      \
  }                                                                                                    \
  }
