// sim-llm's text interface, the one vLLM's Triton backend presents: one model that takes text and
// answers text (tokenization is inside), max_batch_size 0, usually decoupled.
//   text_input STRING [1], optional stream BOOL [1], sampling_parameters STRING [1] (JSON: only
//   "max_tokens" is read, default 16 as in vLLM), exclude_input_in_output BOOL [1]
//   -> text_output STRING [-1]
// "Tokens" are the prompt's white-space separated words: the i-th generated piece is
// " " + words[i mod word count], the prompt echoed cyclically as the token interface does with ids.
// As vLLM does, the answer starts with the prompt itself unless exclude_input_in_output is true;
// streamed (stream true, decoupled model) it comes one piece per response, the prompt in the
// first, so the chunks concatenate to the non-streamed answer. Latency: prefill_us_per_token x
// words, then decode_us_per_step per piece.
// With a `scheduling` parameter (none, static, dynamic, inflight; batch_scheduler.h) requests are
// queued to one scheduler per model that batches them by that mode and answers them from its own
// thread; without it each request runs alone inside Execute (the behaviour so far). An optional
// INT32/INT64 `max_tokens` input (the ensembles' name) overrides sampling_parameters.max_tokens.
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "batch_scheduler.h"
#include "sim_models.h"

namespace triton_studio::sim_llm {
namespace {

using glue::BackendError;
using glue::OutputTensor;

constexpr const char* kTextInput = "text_input";
constexpr const char* kStream = "stream";
constexpr const char* kSamplingParameters = "sampling_parameters";
constexpr const char* kExcludeInput = "exclude_input_in_output";
constexpr const char* kTextOutput = "text_output";
constexpr const char* kMaxTokens = "max_tokens";
constexpr int64_t kDefaultMaxTokens = 16;  // vLLM's SamplingParams default

struct TextRequest {
  std::string prompt;
  std::vector<std::string> words;
  int64_t max_tokens = kDefaultMaxTokens;
  bool stream = false;
  bool exclude_input = false;
  bool wants_text = true;  // text_output requested

  std::string Piece(int64_t i) const { return " " + words[static_cast<size_t>(i) % words.size()]; }
};

std::optional<bool> ReadBool(TRITONBACKEND_Request* request, const char* name) {
  const auto input = glue::ReadInput(request, name);
  if (!input) return std::nullopt;
  if (input->dtype != TRITONSERVER_TYPE_BOOL || input->data.size() != 1) {
    throw BackendError(std::string("input '") + name + "' must be a BOOL holding one value");
  }
  return input->data[0] != 0;
}

class SimTextModel : public glue::BackendModel {
 public:
  explicit SimTextModel(glue::ModelConfig config) : config_(std::move(config)) {
    if (config_.batching()) {
      throw BackendError("sim_llm's text interface (vLLM) takes one prompt per request: set max_batch_size 0");
    }
    if (config_.TensorDataType(kTextInput, false) != TRITONSERVER_TYPE_BYTES ||
        config_.TensorDataType(kTextOutput, true) != TRITONSERVER_TYPE_BYTES) {
      throw BackendError("sim_llm's text interface (vLLM) needs a TYPE_STRING input 'text_input' and a TYPE_STRING "
                         "output 'text_output'");
    }
    prefill_us_per_token_ = config_.NumberParameter("prefill_us_per_token", prefill_us_per_token_);
    decode_us_per_step_ = config_.NumberParameter("decode_us_per_step", decode_us_per_step_);
    max_output_len_ = static_cast<int64_t>(config_.NumberParameter("max_output_len", 4096));
    if (const auto mode = config_.Parameter("scheduling")) {
      Scheduling scheduling;
      try {
        scheduling = ParseScheduling(*mode);
      } catch (const std::invalid_argument& e) {
        throw BackendError(std::string("parameter ") + e.what());
      }
      const CostModel cost{prefill_us_per_token_, decode_us_per_step_,
                           config_.NumberParameter("batch_cost_factor", 0.05)};
      BatchLimits limits;
      limits.max_batch = static_cast<int64_t>(config_.NumberParameter("max_batch", 8));
      limits.static_timeout_us = config_.NumberParameter("static_timeout_us", limits.static_timeout_us);
      limits.max_queue_delay_us = config_.NumberParameter("max_queue_delay_us", limits.max_queue_delay_us);
      if (limits.max_batch < 1) throw BackendError("parameter max_batch must be at least 1");
      loop_ = std::make_unique<SchedulerLoop>(
          BatchScheduler(scheduling, cost, limits),
          [this](const Iteration& it, uint64_t start_ns, uint64_t end_ns) { OnIteration(it, start_ns, end_ns); });
    }
  }

  ~SimTextModel() override { loop_.reset(); }  // stops the scheduler's thread before the members it uses go

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    if (loop_) return Enqueue(instance, requests, count);
    // max_batch_size 0: requests are answered one after the other.
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t start = glue::NowNs();
      bool ok = true;
      try {
        const TextRequest request = Parse(requests[i]);
        if (config_.decoupled) {
          ok = Stream(requests[i], request);
        } else {
          Sleep(PrefillUs(request) + decode_us_per_step_ * static_cast<double>(request.max_tokens));
          ok = glue::SendResponse(requests[i], Outputs(request, Answer(request)));
        }
      } catch (...) {
        glue::SendError(requests[i], glue::CurrentExceptionToError("model '" + config_.name + "'"));
        ok = false;
      }
      const uint64_t end = glue::NowNs();
      LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, requests[i], ok, start, start, end, end));
      LogIfError(TRITONBACKEND_ModelInstanceReportBatchStatistics(instance, 1, start, start, end, end));
      glue::ReleaseRequest(requests[i]);
    }
  }

 private:
  TextRequest Parse(TRITONBACKEND_Request* request) const {
    TextRequest r;
    const std::vector<std::string> texts = glue::ReadRequiredInput(request, kTextInput).Strings();
    if (texts.size() != 1) {
      throw BackendError("input 'text_input' must hold one prompt, got " + std::to_string(texts.size()));
    }
    r.prompt = texts[0];
    std::istringstream words(r.prompt);
    for (std::string word; words >> word;) r.words.push_back(word);
    if (r.words.empty()) {
      throw BackendError("empty prompt: sim_llm echoes the prompt's words, so it needs at least one");
    }
    r.stream = ReadBool(request, kStream).value_or(false);
    r.exclude_input = ReadBool(request, kExcludeInput).value_or(false);
    if (const auto sampling = glue::ReadInput(request, kSamplingParameters)) {
      const std::vector<std::string> values = sampling->Strings();
      if (values.size() != 1) throw BackendError("input 'sampling_parameters' must hold one JSON object");
      const nlohmann::json json = nlohmann::json::parse(values[0], nullptr, /*allow_exceptions=*/false);
      if (!json.is_object()) {
        throw BackendError("input 'sampling_parameters' must be a JSON object, e.g. {\"max_tokens\": 32}");
      }
      if (const auto it = json.find("max_tokens"); it != json.end()) {
        if (!it->is_number_integer()) throw BackendError("sampling_parameters.max_tokens must be an integer");
        r.max_tokens = it->get<int64_t>();
      }
    }
    if (const auto max_tokens = glue::ReadInput(request, kMaxTokens)) {
      const std::vector<int64_t> values = max_tokens->Integers();
      if (values.size() != 1) throw BackendError("input 'max_tokens' must hold one integer");
      r.max_tokens = values[0];
    }
    if (r.max_tokens < 0 || r.max_tokens > max_output_len_) {
      throw BackendError("max_tokens must be between 0 and " + std::to_string(max_output_len_) + ", got " +
                         std::to_string(r.max_tokens));
    }
    r.wants_text = glue::RequestedOutputs(request).count(kTextOutput) > 0;
    return r;
  }

  std::string Answer(const TextRequest& r) const {
    std::string text = r.exclude_input ? "" : r.prompt;
    for (int64_t i = 0; i < r.max_tokens; ++i) text += r.Piece(i);
    return text;
  }

  static std::vector<OutputTensor> Outputs(const TextRequest& r, const std::string& text) {
    if (!r.wants_text) return {};
    return {OutputTensor::Strings(kTextOutput, {1}, {text})};
  }

  // Decoupled: everything in one final response, or (stream true) one response per piece. Returns
  // false when a response could not be sent (the failure went to the client or the log).
  bool Stream(TRITONBACKEND_Request* request, const TextRequest& r) const {
    TRITONBACKEND_ResponseFactory* factory = nullptr;
    glue::Check(TRITONBACKEND_ResponseFactoryNew(&factory, request), "creating a response factory");
    bool ok = true;
    if (!r.stream) {
      Sleep(PrefillUs(r) + decode_us_per_step_ * static_cast<double>(r.max_tokens));
      ok = Send(factory, Outputs(r, Answer(r)), true);
    } else {
      Sleep(PrefillUs(r));
      const std::string prompt = r.exclude_input ? "" : r.prompt;
      if (r.max_tokens == 0) ok = Send(factory, Outputs(r, prompt), true);
      for (int64_t i = 0; ok && i < r.max_tokens; ++i) {
        Sleep(decode_us_per_step_);
        bool cancelled = false;
        LogIfError(TRITONBACKEND_RequestIsCancelled(request, &cancelled));
        if (cancelled) {
          SendError(factory, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_CANCELLED, "request cancelled"));
          ok = false;
          break;
        }
        ok = Send(factory, Outputs(r, (i == 0 ? prompt : "") + r.Piece(i)), i + 1 == r.max_tokens);
      }
    }
    LogIfError(TRITONBACKEND_ResponseFactoryDelete(factory));
    return ok;
  }

  bool Send(TRITONBACKEND_ResponseFactory* factory, const std::vector<OutputTensor>& outputs, bool final) const {
    TRITONBACKEND_Response* response = nullptr;
    if (TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, factory)) {
      LogIfError(err);
      // Without a response the request must still end: FINAL through the factory.
      LogIfError(TRITONBACKEND_ResponseFactorySendFlags(factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
      return false;
    }
    try {
      glue::WriteOutputs(response, outputs);
    } catch (...) {
      LogIfError(TRITONBACKEND_ResponseDelete(response));
      SendError(factory, glue::CurrentExceptionToError("model '" + config_.name + "'"));
      return false;
    }
    LogIfError(TRITONBACKEND_ResponseSend(response, final ? TRITONSERVER_RESPONSE_COMPLETE_FINAL : 0, nullptr));
    return true;
  }

  // A FINAL error response; takes ownership of `error`.
  static void SendError(TRITONBACKEND_ResponseFactory* factory, TRITONSERVER_Error* error) {
    TRITONBACKEND_Response* response = nullptr;
    if (TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, factory)) {
      LogIfError(err);
      LogIfError(TRITONBACKEND_ResponseFactorySendFlags(factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
    } else {
      LogIfError(TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, error));
    }
    TRITONSERVER_ErrorDelete(error);
  }

  // --- scheduled modes -----------------------------------------------------------------------
  struct Active {
    TRITONBACKEND_ModelInstance* instance = nullptr;
    TRITONBACKEND_Request* request = nullptr;
    TRITONBACKEND_ResponseFactory* factory = nullptr;  // decoupled only
    TextRequest text;
    int64_t generated = 0;
    uint64_t queued_ns = 0;
  };

  void Enqueue(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t start = glue::NowNs();
      try {
        Active a{instance, requests[i], nullptr, Parse(requests[i]), 0, start};
        if (config_.decoupled) {
          glue::Check(TRITONBACKEND_ResponseFactoryNew(&a.factory, a.request), "creating a response factory");
        }
        const int64_t prompt_tokens = static_cast<int64_t>(a.text.words.size()), output = a.text.max_tokens;
        uint64_t id;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          id = next_id_++;
          active_.emplace(id, std::move(a));
        }
        loop_->Add(Job{id, prompt_tokens, output, 0});
      } catch (...) {
        glue::SendError(requests[i], glue::CurrentExceptionToError("model '" + config_.name + "'"));
        const uint64_t end = glue::NowNs();
        LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, requests[i], false, start, start, end, end));
        glue::ReleaseRequest(requests[i]);
      }
    }
  }

  // Runs on the scheduler's thread once an iteration's time has passed: streams the pieces it
  // generated and answers the requests it finished.
  void OnIteration(const Iteration& it, uint64_t start_ns, uint64_t end_ns) {
    const std::set<uint64_t> finished(it.finished.begin(), it.finished.end());
    TRITONBACKEND_ModelInstance* instance = nullptr;
    for (uint64_t id : it.emitted) {
      Active* a = Find(id);
      if (a == nullptr) continue;
      instance = a->instance;
      const int64_t i = a->generated++;
      if (!a->text.stream || !config_.decoupled) continue;
      bool cancelled = false;
      LogIfError(TRITONBACKEND_RequestIsCancelled(a->request, &cancelled));
      if (cancelled) {
        loop_->Remove(id);
        SendError(a->factory, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_CANCELLED, "request cancelled"));
        Finish(id, false);
        continue;
      }
      const std::string prompt = i == 0 && !a->text.exclude_input ? a->text.prompt : "";
      if (!Send(a->factory, Outputs(a->text, prompt + a->text.Piece(i)), finished.count(id) > 0)) {
        loop_->Remove(id);
        Finish(id, false);
      } else if (finished.count(id)) {
        Finish(id, true);
      }
    }
    for (uint64_t id : it.finished) {
      Active* a = Find(id);
      if (a == nullptr) continue;  // streamed to its end above
      instance = a->instance;
      bool ok = true;
      if (!config_.decoupled) {
        ok = glue::SendResponse(a->request, Outputs(a->text, Answer(a->text)));
      } else if (!a->text.stream) {
        ok = Send(a->factory, Outputs(a->text, Answer(a->text)), true);
      } else if (a->generated == 0) {  // nothing generated: the prompt alone, as the unscheduled path
        ok = Send(a->factory, Outputs(a->text, a->text.exclude_input ? "" : a->text.prompt), true);
      } else {  // a static/dynamic batch's row that finished earlier ends with its batch
        LogIfError(TRITONBACKEND_ResponseFactorySendFlags(a->factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
      }
      Finish(id, ok);
    }
    // Triton's mean batch size (inference count / execution count) is then the mean rows per iteration.
    if (instance != nullptr) {
      LogIfError(TRITONBACKEND_ModelInstanceReportBatchStatistics(instance, static_cast<uint64_t>(it.rows), start_ns,
                                                                  start_ns, end_ns, end_ns));
    }
  }

  Active* Find(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = active_.find(id);
    return found == active_.end() ? nullptr : &found->second;
  }

  // The request's statistics (queue time included in its compute: the scheduler's queue is the
  // model's own), then its release.
  void Finish(uint64_t id, bool ok) {
    Active a;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = active_.find(id);
      if (found == active_.end()) return;
      a = std::move(found->second);
      active_.erase(found);
    }
    if (a.factory != nullptr) LogIfError(TRITONBACKEND_ResponseFactoryDelete(a.factory));
    const uint64_t end = glue::NowNs();
    LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(a.instance, a.request, ok, a.queued_ns, a.queued_ns, end, end));
    glue::ReleaseRequest(a.request);
  }

  double PrefillUs(const TextRequest& r) const {
    return prefill_us_per_token_ * static_cast<double>(r.words.size());
  }

  static void Sleep(double us) { std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(us))); }

  static void LogIfError(TRITONSERVER_Error* err) {
    if (err == nullptr) return;
    TS_LOG(TRITONSERVER_LOG_ERROR, std::string("sim_llm: ") + TRITONSERVER_ErrorMessage(err));
    TRITONSERVER_ErrorDelete(err);
  }

  glue::ModelConfig config_;
  double prefill_us_per_token_ = 20;
  double decode_us_per_step_ = 500;
  int64_t max_output_len_ = 4096;
  std::mutex mutex_;  // active_ and next_id_: Execute adds, the scheduler's thread removes
  std::map<uint64_t, Active> active_;
  uint64_t next_id_ = 0;
  std::unique_ptr<SchedulerLoop> loop_;  // last: destroyed (its thread stopped) first
};

}  // namespace

std::unique_ptr<glue::BackendModel> CreateTextModel(glue::ModelConfig config) {
  return std::make_unique<SimTextModel>(std::move(config));
}

}  // namespace triton_studio::sim_llm
