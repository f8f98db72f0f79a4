// The detokenize step: token ids ([beam, seq] or [seq] per row, optionally cut by a per-beam
// sequence length) -> one string per beam.
#include <atomic>
#include <limits>

#include "step_common.h"
#include "stream_decoders.h"

namespace triton_studio::steps {
namespace {

using glue::BackendError;
using glue::InputTensor;
using glue::OutputTensor;

class DetokenizeModel : public glue::BackendModel {
 public:
  DetokenizeModel(TRITONBACKEND_Model* model, const DetokenizeSpec& spec, const StepHooks& hooks)
      : spec_(spec), hooks_(hooks) {
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
    // The generator sets `streaming` when the tokens come from a decoupled step.
    if (config_.BoolParameter("streaming", false)) {
      const double idle_s = config_.NumberParameter("stream_idle_timeout_s", 60);
      if (!(idle_s > 0)) throw BackendError("parameter stream_idle_timeout_s must be a positive number of seconds");
      streams_ = std::make_unique<StreamDecoders>(*tokenizer_, skip_special_tokens_,
                                                  static_cast<uint64_t>(idle_s * 1e9), &hooks_);
    }
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

    // Streamed chunks continue the decoder of their request; a request without an id cannot be
    // told apart from others, so its chunk is decoded on its own (and a split character shows).
    std::string stream_id;
    if (streams_) {
      stream_id = glue::RequestId(request);
      if (stream_id.empty() && !warned_no_id_.exchange(true)) {
        TS_LOG(TRITONSERVER_LOG_WARN,
               "model '" + config_.name +
                   "' streams, but a request came without an id: its chunks are decoded one by one, so a "
                   "character split across responses shows as U+FFFD. Send a unique request id.");
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
      if (!stream_id.empty()) {
        texts.push_back(streams_->Push(stream_id + '\x1f' + std::to_string(s), sequence));
      } else {
        std::string text = tokenizer_->Decode(sequence, skip_special_tokens_);
        // afterDecode sees whole answers only; a streamed one goes through the streaming hooks.
        texts.push_back(hooks_.after_decode && !streams_ ? hooks_.after_decode(text) : std::move(text));
      }
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
  StepHooks hooks_;
  glue::ModelConfig config_;
  bool skip_special_tokens_ = true;
  std::shared_ptr<const tok::Tokenizer> tokenizer_;
  std::unique_ptr<StreamDecoders> streams_;  // null unless the step streams
  mutable std::atomic<bool> warned_no_id_{false};
};

}  // namespace

std::unique_ptr<glue::BackendModel> CreateDetokenizeModel(TRITONBACKEND_Model* model, const DetokenizeSpec& spec,
                                                          const StepHooks& hooks) {
  return std::make_unique<DetokenizeModel>(model, spec, hooks);
}

}  // namespace triton_studio::steps
