// Executing a batch of requests: one handler per request, one response each, statistics
// reported, every request released.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "triton_studio/glue/outputs.h"
#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

// Steady clock, as the statistics API expects.
inline uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

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

}  // namespace triton_studio::glue
