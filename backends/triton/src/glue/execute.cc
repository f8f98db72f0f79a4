// Executing a batch of requests (see glue/execute.h).
#include "triton_studio/glue/execute.h"

#include "triton_studio/glue/errors.h"

namespace triton_studio::glue {

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
      TRITONBACKEND_Response* response = BuildResponse(request, result.outputs);
      // As Triton's own backends (onnxruntime, pytorch) count it: the execution ends with the
      // outputs written; handing the response to the frontend (ResponseSend) is not compute.
      const uint64_t outputs_written = NowNs();
      success = response != nullptr && SendBuiltResponse(response);
      if (success) {
        batch_size += result.batch_size;
        compute_end = request_computed;
        LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, request, true, exec_start, request_start,
                                                               request_computed, outputs_written),
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

}  // namespace triton_studio::glue
