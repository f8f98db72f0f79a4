// Building outputs and responses. Outputs are built first (encoding and range checks, no server
// calls: unit-tested alone) and written into a response only when a request has fully
// succeeded, so a bad request gets exactly one clean error response.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

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

// --- asking the server ---------------------------------------------------------------------------
// Creates the outputs in `response`. Does not send it.
void WriteOutputs(TRITONBACKEND_Response* response, const std::vector<OutputTensor>& outputs);

// Sends a response with `outputs` for `request` (FINAL); false when it could not (then an error
// response went out instead, or the failure was logged: there is nobody else to tell).
bool SendResponse(TRITONBACKEND_Request* request, const std::vector<OutputTensor>& outputs);
// SendResponse in its two halves: the response with its outputs written (null when that failed:
// an error response went out instead), and sending it (FINAL).
TRITONBACKEND_Response* BuildResponse(TRITONBACKEND_Request* request, const std::vector<OutputTensor>& outputs);
bool SendBuiltResponse(TRITONBACKEND_Response* response);
// Sends an error response for `request` (FINAL); takes ownership of `error`.
void SendError(TRITONBACKEND_Request* request, TRITONSERVER_Error* error);
void ReleaseRequest(TRITONBACKEND_Request* request);

}  // namespace triton_studio::glue
