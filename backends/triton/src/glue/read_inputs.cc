// Reading a request's inputs from the server (see glue/inputs.h).
#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/inputs.h"

namespace triton_studio::glue {

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

}  // namespace triton_studio::glue
