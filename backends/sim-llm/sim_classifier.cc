// sim-llm's encoder interface, the one a DistilBERT/BERT sequence classifier, a cross-encoder
// reranker (ms-marco-MiniLM) or a sentence embedder (BGE, E5; sentence-transformers' ONNX export)
// presents:
//   input_ids, attention_mask[, token_type_ids] (integer, [-1] per row)
//     -> logits or sentence_embedding FP32 [n]
// (n = the element count of the output's dims). The output is a deterministic function of the real
// tokens, so a test can compute it from the tokenizer's ids, type ids and mask:
//   out[k] = (sum over positions j with attention_mask[j] != 0 of
//             (input_ids[j] + 50000 * token_type_ids[j]) * (j + 1 + k)) mod 65521
// (type ids 0 when the config declares no `token_type_ids`). Order, ids, type ids and mask all
// matter; every value is an integer below 2^16, exact in FP32. With the parameter
// `record_requests` every request's inputs are also written down (sim_record.cc).
#include "sim_models.h"

namespace triton_studio::sim_llm {
namespace {

using glue::BackendError;
using glue::OutputTensor;

constexpr const char* kInputIds = "input_ids";
constexpr const char* kAttentionMask = "attention_mask";
constexpr const char* kTypeIds = "token_type_ids";
constexpr const char* kLogits = "logits";
constexpr const char* kEmbedding = "sentence_embedding";
constexpr int64_t kTypeWeight = 50000;  // a second text's token weighs differently from the first's
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
    if (config_.HasTensor(kTypeIds, false) && !glue::IsIntegerType(config_.TensorDataType(kTypeIds, false))) {
      throw BackendError("sim_llm's encoder interface needs an integer input 'token_type_ids' (e.g. TYPE_INT64)");
    }
    type_ids_ = config_.HasTensor(kTypeIds, false);
    output_ = config_.HasTensor(kLogits, true) ? kLogits : kEmbedding;
    if (config_.TensorDataType(output_, true) != TRITONSERVER_TYPE_FP32) {
      throw BackendError(std::string("sim_llm's classifier interface needs an output '") + output_ +
                         "' of TYPE_FP32");
    }
    record_path_ = config_.Parameter("record_requests").value_or("");
    for (const auto& output : config_.json.value("output", nlohmann::json::array())) {
      if (output.value("name", "") != output_) continue;
      for (const auto& dim : output.value("dims", nlohmann::json::array())) {
        // Triton writes int64 dims as numbers; protobuf's JSON mapping would write strings.
        const int64_t d = dim.is_string() ? std::stoll(dim.get<std::string>()) : dim.get<int64_t>();
        if (d <= 0) {
          throw BackendError(std::string("sim_llm's classifier interface needs fixed '") + output_ +
                             "' dims, e.g. [2]");
        }
        label_dims_.push_back(d);
        num_labels_ *= d;
      }
    }
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    glue::ExecuteEach(instance, config_.name, requests, count, [this](TRITONBACKEND_Request* request) {
      if (!record_path_.empty()) RecordRequest(record_path_, config_.name, request);
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
    std::vector<int64_t> type_values(id_values.size(), 0);
    if (type_ids_) {
      const glue::InputTensor types = glue::ReadRequiredInput(request, kTypeIds);
      if (types.shape != ids.shape) {
        throw BackendError("input 'token_type_ids' must have the shape of 'input_ids', " +
                           glue::ShapeToString(ids.shape) + ", got " + glue::ShapeToString(types.shape));
      }
      type_values = types.Integers();
    }

    OutputTensor logits;
    logits.name = output_;
    logits.dtype = TRITONSERVER_TYPE_FP32;
    logits.shape = glue::WithBatch(batching, rows, label_dims_);
    std::vector<float> values;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < num_labels_; ++k) {
        int64_t sum = 0;
        for (int64_t j = 0; j < width; ++j) {
          const size_t at = static_cast<size_t>(r * width + j);
          const int64_t token = Mod(id_values[at] + kTypeWeight * type_values[at]);
          if (mask_values[at] != 0) sum = Mod(sum + token * Mod(j + 1 + k));
        }
        values.push_back(static_cast<float>(sum));
      }
    }
    const auto* bytes = reinterpret_cast<const char*>(values.data());
    logits.data.assign(bytes, bytes + values.size() * sizeof(float));

    glue::RequestResult result;
    if (glue::RequestedOutputs(request).count(output_)) result.outputs.push_back(std::move(logits));
    result.batch_size = static_cast<uint64_t>(rows);
    return result;
  }

  glue::ModelConfig config_;
  std::string output_;       // "logits" or "sentence_embedding"
  bool type_ids_ = false;    // the config declares 'token_type_ids'
  std::string record_path_;  // "record_requests": where each request's inputs are appended ("" = nowhere)
  std::vector<int64_t> label_dims_;
  int64_t num_labels_ = 1;
};

}  // namespace

std::unique_ptr<glue::BackendModel> CreateClassifierModel(glue::ModelConfig config) {
  return std::make_unique<SimClassifierModel>(std::move(config));
}

}  // namespace triton_studio::sim_llm
