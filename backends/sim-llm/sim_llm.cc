// sim-llm: a stand-in LLM for machines without a GPU. It speaks the FasterTransformer /
// TensorRT-LLM tensor interface (input_ids, input_lengths, request_output_len -> output_ids
// [beam=1, seq], sequence_length), generates deterministic tokens — the i-th generated token is
// input_ids[i mod input_length], the prompt echoed cyclically — and takes as long as a configurable
// latency model says a real model would:
//   prefill  = prefill_us_per_token x (prompt tokens in the whole batch)
//   step     = decode_us_per_step x (1 + batch_cost_factor x (sequences still generating - 1))
// so measured latencies can be checked against a known truth. Like TensorRT-LLM it ends a row at
// its `end_id` (not emitted) or after a `stop_words_list` word (emitted), and never emits a
// `bad_words_list` word (docs/PIPELINE.md, "sim-llm", has the table). With
// `model_transaction_policy { decoupled: true }` it streams one response per generated token when
// the request's `streaming` input is true, and otherwise answers once, as TensorRT-LLM does.
// A test instrument: with the parameter `record_requests` (a file path) every request's inputs are
// appended to that file as one JSON line, so a test can see exactly what the model step received.
// The same library also presents vLLM's text interface and an encoder classifier's (sim_models.h):
// the model's config says which.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim_models.h"
#include "triton_studio/glue.h"
#include "triton_studio/glue/token_model.h"

namespace triton_studio::sim_llm {
namespace {

using glue::BackendError;
using glue::OutputTensor;

constexpr const char* kInputIds = "input_ids";
constexpr const char* kInputLengths = "input_lengths";
constexpr const char* kRequestOutputLen = "request_output_len";
constexpr const char* kOutputIds = "output_ids";
constexpr const char* kSequenceLength = "sequence_length";
constexpr const char* kStreaming = "streaming";  // TensorRT-LLM's optional BOOL input
constexpr const char* kEndId = "end_id";
constexpr const char* kStopWords = "stop_words_list";
constexpr const char* kBadWords = "bad_words_list";

struct LatencyModel {
  double prefill_us_per_token = 20;
  double decode_us_per_step = 500;
  double batch_cost_factor = 0.05;

  double StepUs(int64_t active) const {
    return decode_us_per_step * (1.0 + batch_cost_factor * static_cast<double>(std::max<int64_t>(active, 1) - 1));
  }
};

using glue::ReadWordLists;
using glue::Words;

// One prompt (a batch row of a request) being "generated". Its tokens are decided up front (they
// depend on nothing but the request); the latency model then paces their delivery.
struct Sequence {
  std::vector<int64_t> prompt;
  std::vector<int64_t> tokens;
  int64_t output_len = 0;

  int64_t GeneratedToken(int64_t i) const { return tokens[static_cast<size_t>(i)]; }

  // The prompt echoed cyclically, up to `max_len` tokens. A token that would complete a bad word
  // is passed over for the next one of the cycle (no candidate left: the row ends); the end id
  // ends the row unemitted; a completed stop word ends it emitted.
  void Generate(int64_t max_len, std::optional<int64_t> end_id, const Words& stop, const Words& bad) {
    const size_t n = prompt.size();
    size_t cursor = 0;
    while (static_cast<int64_t>(tokens.size()) < max_len) {
      size_t tries = 0;
      while (tries < n && Completes(bad, prompt[cursor % n])) ++cursor, ++tries;
      if (tries == n) break;
      const int64_t token = prompt[cursor++ % n];
      if (end_id && token == *end_id) break;
      tokens.push_back(token);
      if (EndsWithWord(stop)) break;
    }
    output_len = static_cast<int64_t>(tokens.size());
  }

 private:
  bool Completes(const Words& words, int64_t next) const {
    for (const auto& w : words) {
      if (w.back() != next || w.size() - 1 > tokens.size()) continue;
      if (std::equal(w.begin(), w.end() - 1, tokens.end() - static_cast<std::ptrdiff_t>(w.size() - 1))) return true;
    }
    return false;
  }
  bool EndsWithWord(const Words& words) const {
    for (const auto& w : words) {
      if (w.size() <= tokens.size() && std::equal(w.begin(), w.end(), tokens.end() - static_cast<std::ptrdiff_t>(w.size())))
        return true;
    }
    return false;
  }
};

struct PendingRequest {
  TRITONBACKEND_Request* request = nullptr;
  std::vector<Sequence> rows;
  std::set<std::string> requested;
  TRITONBACKEND_ResponseFactory* factory = nullptr;  // decoupled only
  bool streaming = false;                            // decoupled: the request's `streaming` input turns it on
  bool done = false;                                 // decoupled: FINAL sent
};

class SimLlmModel : public glue::BackendModel {
 public:
  explicit SimLlmModel(glue::ModelConfig config) : config_(std::move(config)) {
    const glue::TokenModelOutputs outputs = glue::CheckTokenModelConfig(config_, "sim_llm", "FasterTransformer", "TYPE_UINT32");
    output_ids_dtype_ = outputs.output_ids;
    sequence_length_dtype_ = outputs.sequence_length;
    latency_.prefill_us_per_token = config_.NumberParameter("prefill_us_per_token", latency_.prefill_us_per_token);
    latency_.decode_us_per_step = config_.NumberParameter("decode_us_per_step", latency_.decode_us_per_step);
    latency_.batch_cost_factor = config_.NumberParameter("batch_cost_factor", latency_.batch_cost_factor);
    include_input_ = config_.BoolParameter("include_input_in_output", false);
    pad_id_ = static_cast<int64_t>(config_.NumberParameter("pad_id", 0));
    max_output_len_ = static_cast<int64_t>(config_.NumberParameter("max_output_len", 4096));
    record_path_ = config_.Parameter("record_requests").value_or("");
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    const uint64_t exec_start = glue::NowNs();
    std::vector<PendingRequest> batch;
    for (uint32_t i = 0; i < count; ++i) {
      PendingRequest pending;
      pending.request = requests[i];
      try {
        if (!record_path_.empty()) RecordRequest(record_path_, config_.name, pending.request);
        Parse(&pending);
        if (config_.decoupled) {
          glue::Check(TRITONBACKEND_ResponseFactoryNew(&pending.factory, pending.request), "creating a response factory");
        }
        batch.push_back(std::move(pending));
      } catch (...) {
        // A bad request (e.g. an empty prompt) is answered now; the rest of the batch goes on.
        glue::SendError(requests[i], glue::CurrentExceptionToError("model '" + config_.name + "'"));
        ReportStatistics(instance, requests[i], false, exec_start, exec_start);
        glue::ReleaseRequest(requests[i]);
      }
    }
    if (batch.empty()) return;

    const uint64_t compute_start = glue::NowNs();
    if (config_.decoupled) {
      Stream(&batch);
    } else {
      SleepFor(TotalUs(batch), std::chrono::steady_clock::now());
    }
    const uint64_t compute_end = glue::NowNs();

    uint64_t rows = 0;
    for (auto& pending : batch) {
      rows += pending.rows.size();
      bool ok = true;
      if (config_.decoupled) {
        if (pending.factory != nullptr) LogIfError(TRITONBACKEND_ResponseFactoryDelete(pending.factory));
      } else {
        try {
          ok = glue::SendResponse(pending.request, FinalOutputs(pending));
        } catch (...) {
          glue::SendError(pending.request, glue::CurrentExceptionToError("model '" + config_.name + "'"));
          ok = false;
        }
      }
      ReportStatistics(instance, pending.request, ok, exec_start, compute_start, compute_end);
      glue::ReleaseRequest(pending.request);
    }
    LogIfError(TRITONBACKEND_ModelInstanceReportBatchStatistics(instance, rows, exec_start, compute_start, compute_end,
                                                                glue::NowNs()));
  }

 private:
  void Parse(PendingRequest* pending) const {
    const bool batching = config_.batching();
    TRITONBACKEND_Request* request = pending->request;
    pending->requested = glue::RequestedOutputs(request);
    const glue::InputTensor ids = glue::ReadRequiredInput(request, kInputIds);
    const glue::InputTensor out_len = glue::ReadRequiredInput(request, kRequestOutputLen);
    const auto lengths = glue::ReadInput(request, kInputLengths);
    if (const auto streaming = glue::ReadInput(request, kStreaming)) {
      if (streaming->dtype != TRITONSERVER_TYPE_BOOL || streaming->data.empty()) {
        throw BackendError("input 'streaming' must be a BOOL holding one value");
      }
      pending->streaming = streaming->data[0] != 0;
    }

    const size_t rank = batching ? 2 : 1;
    if (ids.shape.size() != rank) {
      throw BackendError(std::string("input 'input_ids' must have shape ") + (batching ? "[batch, tokens]" : "[tokens]") +
                         ", got " + glue::ShapeToString(ids.shape));
    }
    const int64_t rows = batching ? ids.shape[0] : 1;
    const int64_t width = ids.shape[rank - 1];
    const std::vector<int64_t> tokens = ids.Integers();
    const auto end_input = glue::ReadInput(request, kEndId);
    std::vector<int64_t> end_ids;
    if (end_input) {
      end_ids = end_input->Integers();
      if (end_ids.size() != static_cast<size_t>(rows)) {
        throw BackendError("input 'end_id' must hold one id per prompt, got shape " + glue::ShapeToString(end_input->shape));
      }
    }
    const std::vector<Words> stop = ReadWordLists(glue::ReadInput(request, kStopWords), rows, batching);
    const std::vector<Words> bad = ReadWordLists(glue::ReadInput(request, kBadWords), rows, batching);
    const std::vector<int64_t> out_values = out_len.Integers();
    if (rows <= 0 || out_values.size() % static_cast<size_t>(rows) != 0 || out_values.empty()) {
      throw BackendError("input 'request_output_len' must hold one value per prompt, got shape " +
                         glue::ShapeToString(out_len.shape));
    }
    std::vector<int64_t> length_values;
    if (lengths) {
      length_values = lengths->Integers();
      if (length_values.size() != static_cast<size_t>(rows)) {
        throw BackendError("input 'input_lengths' must hold one length per prompt, got shape " +
                           glue::ShapeToString(lengths->shape));
      }
    }
    const size_t out_stride = out_values.size() / static_cast<size_t>(rows);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = lengths ? length_values[r] : width;
      if (length <= 0) {
        throw BackendError("empty prompt: sim_llm echoes the prompt's tokens, so it needs at least one input token");
      }
      if (length > width) {
        throw BackendError("input_lengths says " + std::to_string(length) + " tokens but input_ids has only " +
                           std::to_string(width));
      }
      Sequence seq;
      seq.prompt.assign(tokens.begin() + r * width, tokens.begin() + r * width + length);
      const int64_t requested = out_values[r * out_stride];
      if (requested < 0 || requested > max_output_len_) {
        throw BackendError("request_output_len must be between 0 and " + std::to_string(max_output_len_) + ", got " +
                           std::to_string(requested));
      }
      seq.Generate(requested, end_input ? std::optional<int64_t>(end_ids[r]) : std::nullopt, stop[r], bad[r]);
      pending->rows.push_back(std::move(seq));
    }
  }

  int64_t Steps(const std::vector<PendingRequest>& batch) const {
    int64_t steps = 0;
    for (const auto& p : batch) {
      for (const auto& s : p.rows) steps = std::max(steps, s.output_len);
    }
    return steps;
  }

  int64_t ActiveAt(const std::vector<PendingRequest>& batch, int64_t step) const {
    int64_t active = 0;
    for (const auto& p : batch) {
      if (p.done) continue;
      for (const auto& s : p.rows) active += s.output_len > step ? 1 : 0;
    }
    return active;
  }

  double PrefillUs(const std::vector<PendingRequest>& batch) const {
    double tokens = 0;
    for (const auto& p : batch) {
      for (const auto& s : p.rows) tokens += static_cast<double>(s.prompt.size());
    }
    return latency_.prefill_us_per_token * tokens;
  }

  double TotalUs(const std::vector<PendingRequest>& batch) const {
    double total = PrefillUs(batch);
    const int64_t steps = Steps(batch);
    for (int64_t step = 0; step < steps; ++step) total += latency_.StepUs(ActiveAt(batch, step));
    return total;
  }

  static std::chrono::steady_clock::time_point SleepFor(double us, std::chrono::steady_clock::time_point from) {
    const auto until = from + std::chrono::microseconds(static_cast<int64_t>(us));
    std::this_thread::sleep_until(until);
    return until;
  }

  std::vector<OutputTensor> FinalOutputs(const PendingRequest& pending) const {
    const bool batching = config_.batching();
    const int64_t rows = static_cast<int64_t>(pending.rows.size());
    std::vector<int64_t> lengths;
    int64_t width = 0;
    for (const auto& s : pending.rows) {
      lengths.push_back((include_input_ ? static_cast<int64_t>(s.prompt.size()) : 0) + s.output_len);
      width = std::max(width, lengths.back());
    }
    std::vector<int64_t> ids(static_cast<size_t>(rows * width), pad_id_);
    for (int64_t r = 0; r < rows; ++r) {
      const Sequence& s = pending.rows[r];
      auto out = ids.begin() + r * width;
      if (include_input_) out = std::copy(s.prompt.begin(), s.prompt.end(), out);
      for (int64_t i = 0; i < s.output_len; ++i) *out++ = s.GeneratedToken(i);
    }
    std::vector<OutputTensor> outputs;
    if (pending.requested.count(kOutputIds)) {
      outputs.push_back(
          OutputTensor::Integers(kOutputIds, output_ids_dtype_, glue::WithBatch(batching, rows, {1, width}), ids));
    }
    if (pending.requested.count(kSequenceLength)) {
      outputs.push_back(OutputTensor::Integers(kSequenceLength, sequence_length_dtype_,
                                               glue::WithBatch(batching, rows, {1}), lengths));
    }
    return outputs;
  }

  // Decoupled: after the prefill, one response per generated token and request; the last one of
  // each request carries the FINAL flag. Prompt tokens (include_input_in_output) come first. A
  // request with `streaming` false gets everything in one final response at the end.
  void Stream(std::vector<PendingRequest>* batch) const {
    auto clock = SleepFor(PrefillUs(*batch), std::chrono::steady_clock::now());
    if (include_input_) {
      for (auto& p : *batch) {
        if (!p.streaming) continue;
        std::vector<std::vector<int64_t>> prompt_rows;
        for (const auto& s : p.rows) prompt_rows.push_back(s.prompt);
        SendStep(&p, prompt_rows, /*final=*/false);
      }
    }
    const int64_t steps = Steps(*batch);
    for (int64_t step = 0; step < steps; ++step) {
      // A batch whose requests were all cancelled (or ended) stops generating, as a real model
      // frees their slots: a cancellation shows as less work in the model's statistics.
      bool all_done = true;
      for (const auto& p : *batch) all_done = all_done && p.done;
      if (all_done) break;
      clock = SleepFor(latency_.StepUs(ActiveAt(*batch, step)), clock);
      for (auto& p : *batch) {
        if (p.done || !p.streaming) continue;
        bool cancelled = false;
        LogIfError(TRITONBACKEND_RequestIsCancelled(p.request, &cancelled));
        if (cancelled) {
          SendFinalError(&p, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_CANCELLED, "request cancelled"));
          continue;
        }
        int64_t remaining = 0;
        std::vector<std::vector<int64_t>> tokens;
        for (const auto& s : p.rows) {
          tokens.push_back(s.output_len > step ? std::vector<int64_t>{s.GeneratedToken(step)} : std::vector<int64_t>{});
          remaining = std::max(remaining, s.output_len - step - 1);
        }
        SendStep(&p, tokens, remaining == 0);
      }
    }
    for (auto& p : *batch) {
      if (p.done) continue;
      if (!p.streaming) {
        try {
          SendFromFactory(&p, FinalOutputs(p), /*final=*/true);
        } catch (...) {
          SendFinalError(&p, glue::CurrentExceptionToError("model '" + config_.name + "'"));
        }
      } else {  // nothing was generated (request_output_len 0)
        LogIfError(TRITONBACKEND_ResponseFactorySendFlags(p.factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
        p.done = true;
      }
    }
  }

  // One streamed response: output_ids [rows, 1, n] (rows that finished are padded, with
  // sequence_length 0).
  void SendStep(PendingRequest* p, const std::vector<std::vector<int64_t>>& tokens, bool final) const {
    const bool batching = config_.batching();
    const int64_t rows = static_cast<int64_t>(tokens.size());
    int64_t width = 0;
    for (const auto& t : tokens) width = std::max<int64_t>(width, static_cast<int64_t>(t.size()));
    std::vector<int64_t> ids(static_cast<size_t>(rows * width), pad_id_), lengths;
    for (int64_t r = 0; r < rows; ++r) {
      std::copy(tokens[r].begin(), tokens[r].end(), ids.begin() + r * width);
      lengths.push_back(static_cast<int64_t>(tokens[r].size()));
    }
    std::vector<OutputTensor> outputs;
    try {
      if (p->requested.count(kOutputIds)) {
        outputs.push_back(
            OutputTensor::Integers(kOutputIds, output_ids_dtype_, glue::WithBatch(batching, rows, {1, width}), ids));
      }
      if (p->requested.count(kSequenceLength)) {
        outputs.push_back(OutputTensor::Integers(kSequenceLength, sequence_length_dtype_,
                                                 glue::WithBatch(batching, rows, {1}), lengths));
      }
    } catch (...) {
      SendFinalError(p, glue::CurrentExceptionToError("model '" + config_.name + "'"));
      return;
    }
    SendFromFactory(p, outputs, final);
  }

  void SendFromFactory(PendingRequest* p, const std::vector<OutputTensor>& outputs, bool final) const {
    TRITONBACKEND_Response* response = nullptr;
    TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, p->factory);
    if (err != nullptr) {
      LogIfError(err);
      return;
    }
    try {
      glue::WriteOutputs(response, outputs);
    } catch (...) {
      LogIfError(TRITONBACKEND_ResponseDelete(response));
      SendFinalError(p, glue::CurrentExceptionToError("model '" + config_.name + "'"));
      return;
    }
    LogIfError(TRITONBACKEND_ResponseSend(response, final ? TRITONSERVER_RESPONSE_COMPLETE_FINAL : 0, nullptr));
    p->done = final;
  }

  void SendFinalError(PendingRequest* p, TRITONSERVER_Error* error) const {
    TRITONBACKEND_Response* response = nullptr;
    if (TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, p->factory)) {
      LogIfError(err);
    } else {
      LogIfError(TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, error));
    }
    TRITONSERVER_ErrorDelete(error);
    p->done = true;
  }

  static void ReportStatistics(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request* request, bool ok,
                               uint64_t exec_start, uint64_t compute_start, uint64_t compute_end = 0) {
    const uint64_t now = glue::NowNs();
    LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, request, ok, exec_start, compute_start,
                                                           compute_end ? compute_end : now, now));
  }

  static void LogIfError(TRITONSERVER_Error* err) {
    if (err == nullptr) return;
    TS_LOG(TRITONSERVER_LOG_ERROR, std::string("sim_llm: ") + TRITONSERVER_ErrorMessage(err));
    TRITONSERVER_ErrorDelete(err);
  }

  glue::ModelConfig config_;
  LatencyModel latency_;
  bool include_input_ = false;
  int64_t pad_id_ = 0;
  int64_t max_output_len_ = 4096;
  std::string record_path_;  // "record_requests": where each request's inputs are appended ("" = nowhere)
  TRITONSERVER_DataType output_ids_dtype_ = TRITONSERVER_TYPE_UINT32;
  TRITONSERVER_DataType sequence_length_dtype_ = TRITONSERVER_TYPE_UINT32;
};

// The interface comes from the config: an input 'text_input' is vLLM's, an output 'logits' an
// encoder's (as is 'sentence_embedding'); anything else the token interface (FasterTransformer / TensorRT-LLM).
std::unique_ptr<glue::BackendModel> CreateModel(TRITONBACKEND_Model* model) {
  glue::ModelConfig config = glue::ReadModelConfig(model);
  if (config.HasTensor("text_input", false)) return CreateTextModel(std::move(config));
  if (config.HasTensor("logits", true) || config.HasTensor("sentence_embedding", true))
    return CreateClassifierModel(std::move(config));
  return std::make_unique<SimLlmModel>(std::move(config));
}

}  // namespace
}  // namespace triton_studio::sim_llm

TS_TRITON_BACKEND(triton_studio::sim_llm::CreateModel)
