// A native identity step for the per-step floor (bench/streaming/floor.ts): output i is input i,
// through the same glue as the tokenize/detokenize steps (ExecuteEach, reading inputs, building
// responses), so its execution time is Triton's per-step cost plus the glue, without a tokenizer.
#include "triton_studio/glue.h"

namespace {
using namespace triton_studio::glue;

class IdentityModel : public BackendModel {
 public:
  explicit IdentityModel(TRITONBACKEND_Model* model) : config_(ReadModelConfig(model)) {
    for (const auto& t : config_.json.at("input")) inputs_.push_back(t.at("name").get<std::string>());
    for (const auto& t : config_.json.at("output")) outputs_.push_back(t.at("name").get<std::string>());
    if (outputs_.size() > inputs_.size()) throw BackendError("identity: more outputs than inputs");
  }
  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    ExecuteEach(instance, config_.name, requests, count, [this](TRITONBACKEND_Request* request) {
      RequestResult result;
      for (size_t i = 0; i < outputs_.size(); ++i) {
        InputTensor in = ReadRequiredInput(request, inputs_[i]);
        result.outputs.push_back(OutputTensor{outputs_[i], in.dtype, in.shape, std::move(in.data)});
      }
      return result;
    });
  }

 private:
  ModelConfig config_;
  std::vector<std::string> inputs_, outputs_;
};

std::unique_ptr<BackendModel> Create(TRITONBACKEND_Model* model) { return std::make_unique<IdentityModel>(model); }
}  // namespace

TS_TRITON_BACKEND(Create)
