// sim-llm's test instrument `record_requests`: what a model step received, written down so a test
// can compare it with what it should have received (every interface that sets the parameter).
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "sim_models.h"

namespace triton_studio::sim_llm {

void RecordRequest(const std::string& path, const std::string& model, TRITONBACKEND_Request* request) {
  uint32_t count = 0;
  glue::Check(TRITONBACKEND_RequestInputCount(request, &count), "counting request inputs");
  nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    glue::Check(TRITONBACKEND_RequestInputName(request, i, &name), "reading an input name");
    const glue::InputTensor t = glue::ReadRequiredInput(request, name);
    nlohmann::ordered_json data;
    if (t.dtype == TRITONSERVER_TYPE_BYTES) {
      data = t.Strings();
    } else if (t.dtype == TRITONSERVER_TYPE_BOOL) {
      data = nlohmann::ordered_json::array();
      for (const char b : t.data) data.push_back(b != 0);
    } else if (glue::IsIntegerType(t.dtype)) {
      data = t.Integers();
    } else if (t.dtype == TRITONSERVER_TYPE_FP32 || t.dtype == TRITONSERVER_TYPE_FP64) {
      data = t.Floats();
    } else {
      data = std::to_string(t.data.size()) + " bytes";
    }
    inputs[name] = {{"datatype", glue::DataTypeName(t.dtype)}, {"shape", t.shape}, {"data", std::move(data)}};
  }
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::ofstream out(path, std::ios::app);
  out << nlohmann::ordered_json{{"model", model}, {"inputs", std::move(inputs)}}.dump() << "\n";
}

}  // namespace triton_studio::sim_llm
