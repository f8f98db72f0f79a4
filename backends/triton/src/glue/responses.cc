// Writing outputs into responses and sending them (see glue/outputs.h).
#include <cstring>

#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/outputs.h"

namespace triton_studio::glue {

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

TRITONBACKEND_Response* BuildResponse(TRITONBACKEND_Request* request, const std::vector<OutputTensor>& outputs) {
  TRITONBACKEND_Response* response = nullptr;
  TRITONSERVER_Error* err = TRITONBACKEND_ResponseNew(&response, request);
  if (err != nullptr) {
    LogIfError(err, "creating a response");
    return nullptr;
  }
  try {
    WriteOutputs(response, outputs);
  } catch (...) {
    // A half-built response must not be sent: drop it and answer with the error instead.
    LogIfError(TRITONBACKEND_ResponseDelete(response), "deleting a partial response");
    SendError(request, CurrentExceptionToError(""));
    return nullptr;
  }
  return response;
}

bool SendBuiltResponse(TRITONBACKEND_Response* response) {
  TRITONSERVER_Error* send_err = TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, nullptr);
  const bool sent = send_err == nullptr;
  LogIfError(send_err, "sending a response");
  return sent;
}

bool SendResponse(TRITONBACKEND_Request* request, const std::vector<OutputTensor>& outputs) {
  TRITONBACKEND_Response* response = BuildResponse(request, outputs);
  return response != nullptr && SendBuiltResponse(response);
}

void ReleaseRequest(TRITONBACKEND_Request* request) {
  LogIfError(TRITONBACKEND_RequestRelease(request, TRITONSERVER_REQUEST_RELEASE_ALL), "releasing a request");
}

}  // namespace triton_studio::glue
