// The llama.cpp model step (backend "llama_cpp"): a GGUF model served with TensorRT-LLM's tensor
// interface, decoupled, with in-flight batching.
//   input_ids [-1], optional input_lengths, request_output_len, streaming, end_id, stop_words_list,
//   bad_words_list, embedding_bias, temperature, runtime_top_k, runtime_top_p, random_seed
//   -> output_ids [beam=1, tokens], sequence_length
// Execute only checks a request and queues it; one thread per model owns the llama.cpp context
// and, step after step, decodes every active request in one llama_batch (InflightEngine): a
// queued request joins at the next step when a sequence is free, answers stream one token per
// response (`streaming` true) or come in one final response, and a finished or cancelled request
// leaves at once, its KV cells freed. A request that cannot run gets its own error response and
// the others go on. Config parameters (string values): `gguf` (the model file, relative to the
// version folder; default model.gguf), `n_threads` (0: one fewer than the CPUs this process may
// use, at least 1; more is warned about), `max_sequences` (requests decoded together, default 4),
// `context_length` (tokens per request: prompt + output, default 1024), `scheduling` (the batching
// study's modes: `inflight`, the default, admits a queued request at any step; `dynamic` forms a
// batch from what is queued when the model is free and admits nobody until it has ended; `none`
// decodes one request at a time). The llama.cpp libraries sit beside this library in the version
// folder.
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "inflight_engine.h"
#include "triton_studio/glue.h"
#include "triton_studio/glue/token_model.h"

namespace triton_studio::llama_cpp {
namespace {

using glue::BackendError;
using glue::OutputTensor;

constexpr const char* kInputIds = "input_ids";
constexpr const char* kInputLengths = "input_lengths";
constexpr const char* kRequestOutputLen = "request_output_len";
constexpr const char* kOutputIds = "output_ids";
constexpr const char* kSequenceLength = "sequence_length";

struct Job {
  TRITONBACKEND_ModelInstance* instance = nullptr;
  TRITONBACKEND_Request* request = nullptr;
  TRITONBACKEND_ResponseFactory* factory = nullptr;  // decoupled only
  std::vector<int32_t> prompt;
  GenerationParams params;
  bool streaming = false;
  std::set<std::string> requested;
  std::vector<int64_t> tokens;  // generated so far (answered at the end when not streaming)
  uint64_t queued_ns = 0;
};

template <typename T>
std::optional<T> Scalar(TRITONBACKEND_Request* request, const char* name) {
  const auto input = glue::ReadInput(request, name);
  if (!input || input->ElementCount() == 0) return std::nullopt;
  if (input->ElementCount() != 1) throw BackendError(std::string("input '") + name + "' must hold one value");
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(input->Floats()[0]);
  } else if constexpr (std::is_same_v<T, bool>) {
    if (input->dtype != TRITONSERVER_TYPE_BOOL) throw BackendError(std::string("input '") + name + "' must be a BOOL");
    return input->data[0] != 0;
  } else {
    return static_cast<T>(input->Integers()[0]);
  }
}

class LlamaStepModel : public glue::BackendModel {
 public:
  LlamaStepModel(glue::ModelConfig config, const std::string& version_dir) : config_(std::move(config)) {
    const glue::TokenModelOutputs outputs = glue::CheckTokenModelConfig(config_, "llama_cpp", "TensorRT-LLM", "TYPE_INT32");
    output_ids_dtype_ = outputs.output_ids;
    sequence_length_dtype_ = outputs.sequence_length;
    EngineOptions options;
    const std::string gguf = config_.Parameter("gguf").value_or("model.gguf");
    options.model_path = !gguf.empty() && gguf[0] == '/' ? gguf : version_dir + "/" + gguf;
    options.backends_dir = DirectoryOfThisLibrary();
    options.threads = static_cast<int>(config_.NumberParameter("n_threads", 0));
    if (options.threads < 0) {
      throw BackendError("parameter n_threads must be 0 (one fewer than the CPUs) or a positive thread count, got " +
                         std::to_string(options.threads));
    }
    const int cpus = UsableCpus();
    if (options.threads > DefaultThreads(cpus)) {
      TS_LOG(TRITONSERVER_LOG_WARN,
             "llama_cpp: n_threads " + std::to_string(options.threads) + " leaves no CPU free of the " +
                 std::to_string(cpus) + " this server may use; llama.cpp's threads spin-wait for each other, so a "
                 "busy machine can decode tens of times slower. Set n_threads to 0 (picks " +
                 std::to_string(DefaultThreads(cpus)) + ") or at most that.");
    }
    options.max_sequences = static_cast<int>(config_.NumberParameter("max_sequences", 4));
    options.context_length = static_cast<int>(config_.NumberParameter("context_length", 1024));
    const std::string scheduling = config_.Parameter("scheduling").value_or("inflight");
    if (scheduling == "none") {
      options.max_sequences = 1;
    } else if (scheduling == "dynamic") {
      join_running_ = false;
    } else if (scheduling != "inflight") {
      throw BackendError("parameter scheduling must be inflight, dynamic or none, got '" + scheduling + "'");
    }
    try {
      engine_ = std::make_unique<InflightEngine>(options);
    } catch (const std::exception& e) {
      throw BackendError(std::string("model '") + config_.name + "': " + e.what(), TRITONSERVER_ERROR_UNAVAILABLE);
    }
    worker_ = std::thread([this] { Run(); });
  }

  ~LlamaStepModel() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t start = glue::NowNs();
      Job job;
      job.instance = instance;
      job.request = requests[i];
      job.queued_ns = start;
      try {
        Parse(&job);
        if (config_.decoupled) {
          glue::Check(TRITONBACKEND_ResponseFactoryNew(&job.factory, job.request), "creating a response factory");
        }
      } catch (...) {
        // This request alone fails; the rest of the batch (and every running one) goes on.
        glue::SendError(requests[i], glue::CurrentExceptionToError("model '" + config_.name + "'"));
        const uint64_t end = glue::NowNs();
        LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(instance, requests[i], false, start, start, end, end));
        glue::ReleaseRequest(requests[i]);
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(job));
      }
      wake_.notify_one();
    }
  }

 private:
  void Parse(Job* job) const {
    TRITONBACKEND_Request* request = job->request;
    const bool batching = config_.batching();
    job->requested = glue::RequestedOutputs(request);
    const glue::InputTensor ids = glue::ReadRequiredInput(request, kInputIds);
    const size_t rank = batching ? 2 : 1;
    if (ids.shape.size() != rank || (batching && ids.shape[0] != 1)) {
      throw BackendError(std::string("input 'input_ids' must have shape ") + (batching ? "[1, tokens]" : "[tokens]") +
                         " (one prompt per request), got " + glue::ShapeToString(ids.shape));
    }
    const std::vector<int64_t> tokens = ids.Integers();
    int64_t length = static_cast<int64_t>(tokens.size());
    if (const auto lengths = Scalar<int64_t>(request, kInputLengths)) {
      if (*lengths < 0 || *lengths > length) {
        throw BackendError("input_lengths says " + std::to_string(*lengths) + " tokens but input_ids has " +
                           std::to_string(length));
      }
      length = *lengths;
    }
    for (int64_t i = 0; i < length; ++i) {
      if (tokens[i] < INT32_MIN || tokens[i] > INT32_MAX) throw BackendError("input_ids holds a value outside int32");
      job->prompt.push_back(static_cast<int32_t>(tokens[i]));
    }
    GenerationParams& p = job->params;
    const auto out_len = Scalar<int64_t>(request, kRequestOutputLen);
    if (!out_len) throw BackendError("input 'request_output_len' must hold one value");
    p.max_new_tokens = *out_len;
    job->streaming = Scalar<bool>(request, "streaming").value_or(false);
    p.end_id = Scalar<int64_t>(request, "end_id");
    p.stop_words = glue::ReadWordLists(glue::ReadInput(request, "stop_words_list"), 1, batching)[0];
    p.bad_words = glue::ReadWordLists(glue::ReadInput(request, "bad_words_list"), 1, batching)[0];
    if (const auto bias = glue::ReadInput(request, "embedding_bias"); bias && bias->ElementCount() > 0) {
      const std::vector<double> values = bias->Floats();
      if (static_cast<int64_t>(values.size()) != engine_->vocabulary_size()) {
        throw BackendError("input 'embedding_bias' must hold one value per vocabulary token (" +
                           std::to_string(engine_->vocabulary_size()) + "), got " + std::to_string(values.size()));
      }
      p.logit_bias.assign(values.begin(), values.end());
    }
    if (const auto beams = Scalar<int64_t>(request, "beam_width"); beams && *beams != 1) {
      throw BackendError("beam_width " + std::to_string(*beams) + ": the llama.cpp step decodes one beam; send 1");
    }
    const auto temperature = Scalar<float>(request, "temperature");
    const auto top_k = Scalar<int64_t>(request, "runtime_top_k");
    const auto top_p = Scalar<float>(request, "runtime_top_p");
    p.sampling = temperature || top_k || top_p;
    p.temperature = temperature.value_or(1.0f);
    p.top_k = static_cast<int>(top_k.value_or(0));
    p.top_p = top_p.value_or(1.0f);
    p.seed = Scalar<uint64_t>(request, "random_seed").value_or(0);
    try {
      engine_->Validate(job->prompt, p);
    } catch (const RequestError& e) {
      throw BackendError(e.what());
    }
  }

  // The worker: admits queued requests while sequences are free, drops cancelled ones, decodes
  // one step for all, answers what it produced. Sleeps while there is nothing to do.
  void Run() {
    while (WaitAndAdmit()) {
      batch_running_ = true;
      DropCancelled();
      if (active_.empty()) {
        batch_running_ = false;
        continue;
      }
      const uint64_t start = glue::NowNs();
      std::vector<StepEvent> events;
      try {
        events = engine_->Step();
      } catch (...) {
        FailStep();
        continue;
      }
      ReportStep(events, start, glue::NowNs());
      Deliver(events);
      batch_running_ = !active_.empty();
    }
    FailRemaining();
  }

  // Waits for work; admits queued requests (in-flight: each joins at the next step; dynamic: only
  // a free model takes a new batch). False when the model is stopping.
  bool WaitAndAdmit() {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || !queue_.empty() || !active_.empty(); });
    if (stop_) return false;
    while (!queue_.empty() && engine_->HasFreeSequence() && (join_running_ || !batch_running_)) {
      Job job = std::move(queue_.front());
      queue_.pop_front();
      const uint64_t id = next_id_++;
      engine_->Add(id, job.prompt, job.params);
      active_.emplace(id, std::move(job));
    }
    return true;
  }

  // The step itself failed: every request in it fails, the model keeps serving.
  void FailStep() {
    TRITONSERVER_Error* error = glue::CurrentExceptionToError("model '" + config_.name + "'");
    std::vector<uint64_t> ids;
    for (const auto& [id, job] : active_) ids.push_back(id);
    for (uint64_t id : ids) {
      engine_->Remove(id);
      Fail(id, TRITONSERVER_ErrorNew(TRITONSERVER_ErrorCode(error), TRITONSERVER_ErrorMessage(error)));
    }
    TRITONSERVER_ErrorDelete(error);
  }

  // Reported before any answer of this step is sent, so a client that reads the statistics after
  // its last response finds this step counted. Triton's mean batch size (inference count /
  // execution count) is then the mean number of requests decoded per step.
  void ReportStep(const std::vector<StepEvent>& events, uint64_t start, uint64_t end) {
    if (engine_->last_rows() <= 0) return;
    for (const StepEvent& event : events) {
      const auto found = active_.find(event.id);
      if (found == active_.end()) continue;
      LogIfError(TRITONBACKEND_ModelInstanceReportBatchStatistics(
          found->second.instance, static_cast<uint64_t>(engine_->last_rows()), start, start, end, end));
      return;
    }
  }

  // Each event's token to its request: streamed at once, or kept until the request ends.
  void Deliver(const std::vector<StepEvent>& events) {
    for (const StepEvent& event : events) {
      const auto found = active_.find(event.id);
      if (found == active_.end()) continue;
      Job& job = found->second;
      if (event.token) job.tokens.push_back(*event.token);
      if (job.streaming && config_.decoupled) {
        if (event.token) {
          if (!Send(job, {*event.token}, event.finished)) {
            engine_->Remove(event.id);
            Finish(event.id, false);
            continue;
          }
        } else if (event.finished) {
          LogIfError(TRITONBACKEND_ResponseFactorySendFlags(job.factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
        }
        if (event.finished) Finish(event.id, true);
      } else if (event.finished) {
        const bool ok = config_.decoupled ? Send(job, job.tokens, true)
                                          : glue::SendResponse(job.request, Outputs(job, job.tokens));
        Finish(event.id, ok);
      }
    }
  }

  // Unloading: Triton waits for every request to be released, so this is only reached with
  // requests left when the model is torn down anyway; they end with an error.
  void FailRemaining() {
    std::vector<uint64_t> ids;
    for (const auto& [id, job] : active_) ids.push_back(id);
    for (uint64_t id : ids) Fail(id, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "model unloading"));
    for (Job& job : queue_) {
      glue::SendError(job.request, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, "model unloading"));
      glue::ReleaseRequest(job.request);
    }
  }

  void DropCancelled() {
    std::vector<uint64_t> cancelled;
    for (const auto& [id, job] : active_) {
      bool is_cancelled = false;
      LogIfError(TRITONBACKEND_RequestIsCancelled(job.request, &is_cancelled));
      if (is_cancelled) cancelled.push_back(id);
    }
    for (uint64_t id : cancelled) {
      engine_->Remove(id);  // its KV cells are free for the next step
      Fail(id, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_CANCELLED, "request cancelled"));
    }
  }

  std::vector<OutputTensor> Outputs(const Job& job, const std::vector<int64_t>& tokens) const {
    const bool batching = config_.batching();
    const int64_t n = static_cast<int64_t>(tokens.size());
    std::vector<OutputTensor> outputs;
    if (job.requested.count(kOutputIds)) {
      outputs.push_back(OutputTensor::Integers(kOutputIds, output_ids_dtype_, glue::WithBatch(batching, 1, {1, n}), tokens));
    }
    if (job.requested.count(kSequenceLength)) {
      outputs.push_back(
          OutputTensor::Integers(kSequenceLength, sequence_length_dtype_, glue::WithBatch(batching, 1, {1}), {n}));
    }
    return outputs;
  }

  // One response through the request's factory; false when it could not be sent (the request
  // then has its FINAL already, an error when there was one to give).
  bool Send(Job& job, const std::vector<int64_t>& tokens, bool final) {
    TRITONBACKEND_Response* response = nullptr;
    if (TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, job.factory)) {
      LogIfError(err);
      LogIfError(TRITONBACKEND_ResponseFactorySendFlags(job.factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
      return false;
    }
    try {
      glue::WriteOutputs(response, Outputs(job, tokens));
    } catch (...) {
      LogIfError(TRITONBACKEND_ResponseDelete(response));
      SendFinalError(job, glue::CurrentExceptionToError("model '" + config_.name + "'"));
      return false;
    }
    LogIfError(TRITONBACKEND_ResponseSend(response, final ? TRITONSERVER_RESPONSE_COMPLETE_FINAL : 0, nullptr));
    return true;
  }

  // A FINAL error for the request; takes ownership of `error`.
  void SendFinalError(Job& job, TRITONSERVER_Error* error) {
    if (job.factory == nullptr) {
      glue::SendError(job.request, error);
      return;
    }
    TRITONBACKEND_Response* response = nullptr;
    if (TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, job.factory)) {
      LogIfError(err);
      LogIfError(TRITONBACKEND_ResponseFactorySendFlags(job.factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL));
    } else {
      LogIfError(TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, error));
    }
    TRITONSERVER_ErrorDelete(error);
  }

  void Fail(uint64_t id, TRITONSERVER_Error* error) {
    const auto found = active_.find(id);
    if (found == active_.end()) {
      TRITONSERVER_ErrorDelete(error);
      return;
    }
    SendFinalError(found->second, error);
    Finish(id, false);
  }

  // Statistics (the time queued inside the model counts as compute, as the scheduler is the
  // model's own), then the request's release: its state ends here.
  void Finish(uint64_t id, bool ok) {
    const auto found = active_.find(id);
    if (found == active_.end()) return;
    Job job = std::move(found->second);
    active_.erase(found);
    if (job.factory != nullptr) LogIfError(TRITONBACKEND_ResponseFactoryDelete(job.factory));
    const uint64_t end = glue::NowNs();
    LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(job.instance, job.request, ok, job.queued_ns, job.queued_ns,
                                                           end, end));
    glue::ReleaseRequest(job.request);
  }

  static void LogIfError(TRITONSERVER_Error* err) {
    if (err == nullptr) return;
    TS_LOG(TRITONSERVER_LOG_ERROR, std::string("llama_cpp: ") + TRITONSERVER_ErrorMessage(err));
    TRITONSERVER_ErrorDelete(err);
  }

  glue::ModelConfig config_;
  TRITONSERVER_DataType output_ids_dtype_ = TRITONSERVER_TYPE_INT32;
  TRITONSERVER_DataType sequence_length_dtype_ = TRITONSERVER_TYPE_INT32;
  std::unique_ptr<InflightEngine> engine_;  // used by the worker only (Validate: read-only limits)
  std::mutex mutex_;                        // queue_ and stop_
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stop_ = false;
  std::map<uint64_t, Job> active_;  // the worker's own
  bool join_running_ = true;        // scheduling inflight: requests join a running batch
  bool batch_running_ = false;      // the worker's own: a batch has requests left
  uint64_t next_id_ = 0;
  std::thread worker_;  // last: started once everything it uses exists
};

std::unique_ptr<glue::BackendModel> CreateModel(TRITONBACKEND_Model* model) {
  glue::ModelConfig config = glue::ReadModelConfig(model);
  return std::make_unique<LlamaStepModel>(std::move(config), glue::ModelVersionDirectory(model));
}

}  // namespace
}  // namespace triton_studio::llama_cpp

TS_TRITON_BACKEND(triton_studio::llama_cpp::CreateModel)
