// sim-llm's encoder-classifier interface, the one a DistilBERT/BERT sequence classifier presents:
//   input_ids, attention_mask (integer, [-1] per row) -> logits FP32 [num_labels]
// (num_labels = the element count of the config's `logits` dims). The logits are a deterministic
// function of the real tokens, so a test can compute them from the tokenizer's ids:
//   logits[k] = (sum over positions j with attention_mask[j] != 0 of input_ids[j] * (j + 1 + k)) mod 65521
// Order, ids and mask all matter; every value is an integer below 2^16, exact in FP32.
#include "sim_models.h"

namespace triton_studio::sim_llm {
namespace {

using glue::BackendError;
using glue::OutputTensor;

constexpr const char* kInputIds = "input_ids";
constexpr const char* kAttentionMask = "attention_mask";
constexpr const char* kLogits = "logits";
constexpr int64_t kModulus = 65521;  // largest prime below 2^16

int64_t Mod(int64_t v) { return ((v % kModulus) + kModulus) % kModulus; }

class SimClassifierModel : public glue::BackendModel {
 public:
  explicit SimClassifierModel(glue::ModelConfig config) : config_(std::move(config)) {
    for (const char* input : {kInputIds, kAttentionMask}) {
      if (!glue::IsIntegerType(config_.TensorDataType(input, false))) {
        throw BackendError(std::string("sim_llm's classifier interface needs an integer input '") + input +
                           "' (e.g. TYPE_INT64, dims [-1])");
      }
    }
    if (config_.TensorDataType(kLogits, true) != TRITONSERVER_TYPE_FP32) {
      throw BackendError("sim_llm's classifier interface needs an output 'logits' of TYPE_FP32");
    }
    for (const auto& output : config_.json.value("output", nlohmann::json::array())) {
      if (output.value("name", "") != kLogits) continue;
      for (const auto& dim : output.value("dims", nlohmann::json::array())) {
        // Triton writes int64 dims as numbers; protobuf's JSON mapping would write strings.
        const int64_t d = dim.is_string() ? std::stoll(dim.get<std::string>()) : dim.get<int64_t>();
        if (d <= 0) throw BackendError("sim_llm's classifier interface needs fixed 'logits' dims, e.g. [2]");
        label_dims_.push_back(d);
        num_labels_ *= d;
      }
    }
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    glue::ExecuteEach(instance, config_.name, requests, count, [this](TRITONBACKEND_Request* request) {
      return Classify(request);
    });
  }

 private:
  glue::RequestResult Classify(TRITONBACKEND_Request* request) const {
    const glue::InputTensor ids = glue::ReadRequiredInput(request, kInputIds);
    const glue::InputTensor mask = glue::ReadRequiredInput(request, kAttentionMask);
    const bool batching = config_.batching();
    const size_t rank = batching ? 2 : 1;
    if (ids.shape.size() != rank || mask.shape != ids.shape) {
      throw BackendError("inputs 'input_ids' and 'attention_mask' must both have shape " +
                         std::string(batching ? "[batch, tokens]" : "[tokens]") + ", got " +
                         glue::ShapeToString(ids.shape) + " and " + glue::ShapeToString(mask.shape));
    }
    const int64_t rows = batching ? ids.shape[0] : 1;
    const int64_t width = ids.shape[rank - 1];
    const std::vector<int64_t> id_values = ids.Integers();
    const std::vector<int64_t> mask_values = mask.Integers();

    OutputTensor logits;
    logits.name = kLogits;
    logits.dtype = TRITONSERVER_TYPE_FP32;
    logits.shape = glue::WithBatch(batching, rows, label_dims_);
    std::vector<float> values;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < num_labels_; ++k) {
        int64_t sum = 0;
        for (int64_t j = 0; j < width; ++j) {
          const size_t at = static_cast<size_t>(r * width + j);
          if (mask_values[at] != 0) sum = Mod(sum + Mod(id_values[at]) * Mod(j + 1 + k));
        }
        values.push_back(static_cast<float>(sum));
      }
    }
    const auto* bytes = reinterpret_cast<const char*>(values.data());
    logits.data.assign(bytes, bytes + values.size() * sizeof(float));

    glue::RequestResult result;
    if (glue::RequestedOutputs(request).count(kLogits)) result.outputs.push_back(std::move(logits));
    result.batch_size = static_cast<uint64_t>(rows);
    return result;
  }

  glue::ModelConfig config_;
  std::vector<int64_t> label_dims_;
  int64_t num_labels_ = 1;
};

}  // namespace

std::unique_ptr<glue::BackendModel> CreateClassifierModel(glue::ModelConfig config) {
  return std::make_unique<SimClassifierModel>(std::move(config));
}

}  // namespace triton_studio::sim_llm
