// A native identity step for the per-step floor (bench/streaming/floor.ts): output i is input i,
// through the same glue as the tokenize/detokenize steps (ExecuteEach, reading inputs, building
// responses), so its execution time is Triton's per-step cost plus the glue, without a tokenizer.
// An output whose declared type differs from its input's carries the input's bytes as they are:
// as one BYTES element when it is a string (the floor's stand-in for detokenize, fed sim-llm's
// UINT32 tokens: the ensemble's text_output must be a string for the latency test to read it),
// else reinterpreted as that type (the stand-in for tokenize hands sim-llm the prompt's bytes).
#include <cstdint>
#include <cstring>

#include "triton_studio/glue.h"

namespace {
using namespace triton_studio::glue;

class IdentityModel : public BackendModel {
 public:
  explicit IdentityModel(TRITONBACKEND_Model* model) : config_(ReadModelConfig(model)) {
    for (const auto& t : config_.json.at("input")) inputs_.push_back(t.at("name").get<std::string>());
    for (const auto& t : config_.json.at("output")) {
      outputs_.push_back(t.at("name").get<std::string>());
      output_types_.push_back(config_.TensorDataType(outputs_.back(), true));
    }
    if (outputs_.size() > inputs_.size()) throw BackendError("identity: more outputs than inputs");
  }
  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    ExecuteEach(instance, config_.name, requests, count, [this](TRITONBACKEND_Request* request) {
      RequestResult result;
      // Every input is read, as a step reads all of its own; the first ones are written back.
      std::vector<InputTensor> ins;
      for (const auto& name : inputs_) ins.push_back(ReadRequiredInput(request, name));
      for (size_t i = 0; i < outputs_.size(); ++i) {
        InputTensor& in = ins[i];
        if (output_types_[i] == TRITONSERVER_TYPE_BYTES && in.dtype != TRITONSERVER_TYPE_BYTES) {
          result.outputs.push_back(AsBytes(outputs_[i], in));
        } else if (output_types_[i] != in.dtype) {
          result.outputs.push_back(Reinterpreted(outputs_[i], output_types_[i], in));
        } else {
          result.outputs.push_back(OutputTensor{outputs_[i], in.dtype, in.shape, std::move(in.data)});
        }
      }
      return result;
    });
  }

 private:
  // One BYTES element (4-byte little-endian length, then the bytes) holding the whole input,
  // shaped [1, 1]: one request of batch 1, as the floor sends them (more rows would need a split).
  static OutputTensor AsBytes(const std::string& name, const InputTensor& in) {
    if (in.shape.empty() || in.shape[0] != 1)
      throw BackendError("identity: a non-STRING input passed as STRING needs a batch of 1 (" + in.name + ")");
    const auto size = static_cast<uint32_t>(in.data.size());
    std::vector<char> data(4 + in.data.size());
    for (int b = 0; b < 4; ++b) data[b] = static_cast<char>((size >> (8 * b)) & 0xff);
    if (!in.data.empty()) std::memcpy(data.data() + 4, in.data.data(), in.data.size());
    return OutputTensor{name, TRITONSERVER_TYPE_BYTES, {1, 1}, std::move(data)};
  }

  // The input's bytes as elements of `dtype` (zero-padded to a whole element), shaped [1, n]:
  // the floor's stand-in for tokenize, fed the prompt string, hands sim-llm a UINT32 tensor of
  // about the same size as the ids.
  static OutputTensor Reinterpreted(const std::string& name, TRITONSERVER_DataType dtype, InputTensor& in) {
    const size_t size = DataTypeByteSize(dtype);
    if (in.shape.empty() || in.shape[0] != 1 || size == 0 || in.data.empty())
      throw BackendError("identity: input " + in.name + " cannot be passed as " + DataTypeName(dtype) +
                         " (needs a batch of 1 and a fixed-size output type)");
    in.data.resize((in.data.size() + size - 1) / size * size, 0);
    return OutputTensor{name, dtype, {1, static_cast<int64_t>(in.data.size() / size)}, std::move(in.data)};
  }

  ModelConfig config_;
  std::vector<std::string> inputs_, outputs_;
  std::vector<TRITONSERVER_DataType> output_types_;
};

std::unique_ptr<BackendModel> Create(TRITONBACKEND_Model* model) { return std::make_unique<IdentityModel>(model); }
}  // namespace

TS_TRITON_BACKEND(Create)
