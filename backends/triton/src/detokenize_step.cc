// The detokenize step: token ids ([beam, seq] or [seq] per row, optionally cut by a per-beam
// sequence length) -> one string per beam.
#include <limits>

#include "step_common.h"

namespace triton_studio::steps {
namespace {

using glue::BackendError;
using glue::InputTensor;
using glue::OutputTensor;

class DetokenizeModel : public glue::BackendModel {
 public:
  DetokenizeModel(TRITONBACKEND_Model* model, const DetokenizeSpec& spec) : spec_(spec) {
    config_ = glue::ReadModelConfig(model);
    NoteBatchSizeDifference(config_, spec_.max_batch_size);
    if (spec_.tokens.dims.size() != 1 && spec_.tokens.dims.size() != 2) {
      throw BackendError("input '" + spec_.tokens.name + "' must have dims [-1] (seq) or [-1,-1] (beam, seq), got " +
                         glue::ShapeToString(spec_.tokens.dims));
    }
    CheckTensorDeclared(config_, spec_.tokens, false);
    if (spec_.sequence_length) CheckTensorDeclared(config_, *spec_.sequence_length, false);
    CheckTensorDeclared(config_, spec_.text, true);
    skip_special_tokens_ = config_.BoolParameter("skip_special_tokens", spec_.skip_special_tokens);
    tokenizer_ = LoadTokenizer(model, spec_.tokenizer_file);
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    glue::ExecuteEach(instance, config_.name, requests, count,
                      [this](TRITONBACKEND_Request* request) { return Run(request); });
  }

 private:
  glue::RequestResult Run(TRITONBACKEND_Request* request) const {
    const bool batching = config_.batching();
    const InputTensor tokens = glue::ReadRequiredInput(request, spec_.tokens.name);
    const size_t rank = spec_.tokens.dims.size() + (batching ? 1 : 0);
    if (tokens.shape.size() != rank) {
      throw BackendError("input '" + tokens.name + "' must have " + std::to_string(rank) + " dimensions (" +
                         (batching ? "batch, " : "") + (spec_.tokens.dims.size() == 2 ? "beam, " : "") +
                         "sequence), got shape " + glue::ShapeToString(tokens.shape));
    }
    const int64_t rows = batching ? tokens.shape[0] : 1;
    const int64_t beams = spec_.tokens.dims.size() == 2 ? tokens.shape[rank - 2] : 1;
    const int64_t seq = tokens.shape[rank - 1];
    const std::vector<int64_t> ids = tokens.Integers();

    std::vector<int64_t> lengths(static_cast<size_t>(rows * beams), seq);
    if (spec_.sequence_length) {
      if (auto len = glue::ReadInput(request, spec_.sequence_length->name)) {
        lengths = len->Integers();
        if (static_cast<int64_t>(lengths.size()) != rows * beams) {
          throw BackendError("input '" + len->name + "' has " + std::to_string(lengths.size()) +
                             " lengths but '" + tokens.name + "' has " + std::to_string(rows * beams) +
                             " sequences (shape " + glue::ShapeToString(tokens.shape) + ")");
        }
      }
    }

    std::vector<std::string> texts;
    texts.reserve(lengths.size());
    for (int64_t s = 0; s < rows * beams; ++s) {
      const int64_t length = lengths[s];
      if (length < 0 || length > seq) {
        throw BackendError("sequence length " + std::to_string(length) + " is outside the " + std::to_string(seq) +
                           " tokens of '" + tokens.name + "'");
      }
      std::vector<uint32_t> sequence;
      sequence.reserve(static_cast<size_t>(length));
      for (int64_t t = 0; t < length; ++t) {
        const int64_t id = ids[s * seq + t];
        if (id < 0 || id > std::numeric_limits<uint32_t>::max()) {
          throw BackendError("token id " + std::to_string(id) + " in '" + tokens.name + "' is not a valid id");
        }
        sequence.push_back(static_cast<uint32_t>(id));
      }
      texts.push_back(tokenizer_->Decode(sequence, skip_special_tokens_));
    }

    // One string per beam, shaped to the output's declared rank ([beam] or e.g. [beam, 1]).
    std::vector<int64_t> dims{beams};
    while (dims.size() < spec_.text.dims.size()) dims.push_back(1);
    glue::RequestResult result;
    result.batch_size = static_cast<uint64_t>(rows);
    result.outputs.push_back(OutputTensor::Strings(spec_.text.name, glue::WithBatch(batching, rows, dims), texts));
    return result;
  }

  DetokenizeSpec spec_;
  glue::ModelConfig config_;
  bool skip_special_tokens_ = true;
  std::shared_ptr<const tok::Tokenizer> tokenizer_;
};

}  // namespace

std::unique_ptr<glue::BackendModel> CreateDetokenizeModel(TRITONBACKEND_Model* model, const DetokenizeSpec& spec) {
  return std::make_unique<DetokenizeModel>(model, spec);
}

}  // namespace triton_studio::steps
