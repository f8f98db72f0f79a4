// Reading a request's inputs: each tensor gathered into contiguous host memory, then decoded
// (BYTES strings, integers widened, floats). Decoding is separate from reading, so it is
// unit-tested without a server.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

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

// --- asking the server ---------------------------------------------------------------------------
// nullopt when the request does not carry the input (the caller decides if that is an error).
std::optional<InputTensor> ReadInput(TRITONBACKEND_Request* request, const std::string& name);
InputTensor ReadRequiredInput(TRITONBACKEND_Request* request, const std::string& name);
// The request's id as the client sent it ("" when none); an ensemble passes it on to its steps.
std::string RequestId(TRITONBACKEND_Request* request);
// Names of the outputs the request asked for.
std::set<std::string> RequestedOutputs(TRITONBACKEND_Request* request);

}  // namespace triton_studio::glue
