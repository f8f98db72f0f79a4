// The native orchestrator (see triton_studio/orchestrator.h). Per client request an Answer holds
// everything the request needs until both the model step's last response and the release of the
// model request have arrived; then it reports statistics, releases the client's request and is
// freed. Callbacks of one model request may come from the model's threads: an Answer's mutex
// orders them.
#include "triton_studio/orchestrator.h"

#include <cstdlib>
#include <mutex>
#include <set>

#include "answer_text.h"
#include "encoder_options.h"
#include "step_common.h"
#include "tokenize_runner.h"

namespace triton_studio::steps {
namespace {

using glue::BackendError;
using glue::InputTensor;
using glue::OutputTensor;

class OrchestratorModel;

struct Answer {
  OrchestratorModel* model = nullptr;
  TRITONBACKEND_ModelInstance* instance = nullptr;
  TRITONBACKEND_Request* request = nullptr;  // held until the end: cancellation is read from it
  TRITONBACKEND_ResponseFactory* factory = nullptr;
  TRITONSERVER_InferenceRequest* target = nullptr;
  std::vector<OutputTensor> target_inputs;  // the model request points into these buffers
  std::unique_ptr<AnswerText> text;
  std::mutex mutex;
  bool client_done = false;  // the client has its FINAL response
  bool sent_any = false;
  bool cancel_sent = false;
  bool failed = false;
  bool target_final = false;
  bool target_released = false;
  uint64_t exec_start = 0;
  uint64_t compute_start = 0;
};

void LogIfError(TRITONSERVER_Error* err, const char* what) { glue::LogIfError(err, what); }

// Output buffers of the model's responses: host memory, freed when the response is deleted.
TRITONSERVER_Error* Allocate(TRITONSERVER_ResponseAllocator*, const char*, size_t byte_size, TRITONSERVER_MemoryType,
                             int64_t, void*, void** buffer, void** buffer_userp,
                             TRITONSERVER_MemoryType* actual_memory_type, int64_t* actual_memory_type_id) {
  *actual_memory_type = TRITONSERVER_MEMORY_CPU;
  *actual_memory_type_id = 0;
  *buffer_userp = nullptr;
  *buffer = byte_size > 0 ? std::malloc(byte_size) : nullptr;
  if (byte_size > 0 && *buffer == nullptr) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "out of memory for a model response");
  }
  return nullptr;
}

TRITONSERVER_Error* ReleaseBuffer(TRITONSERVER_ResponseAllocator*, void* buffer, void*, size_t, TRITONSERVER_MemoryType,
                                  int64_t) {
  std::free(buffer);
  return nullptr;
}

void OnTargetResponse(TRITONSERVER_InferenceResponse* response, const uint32_t flags, void* userp);
void OnTargetReleased(TRITONSERVER_InferenceRequest* request, const uint32_t flags, void* userp);

class OrchestratorModel : public glue::BackendModel {
 public:
  OrchestratorModel(TRITONBACKEND_Model* model, const OrchestratorSpec& spec) : spec_(spec) {
    config_ = glue::ReadModelConfig(model);
    if (!config_.decoupled) {
      throw BackendError("the orchestrator streams, so its config needs model_transaction_policy { decoupled: true }; "
                         "regenerate the repository");
    }
    for (const auto& [step_input, client_input] : spec_.tokenize_inputs) {
      if (!config_.HasTensor(client_input, false)) {
        throw BackendError("config.pbtxt has no input '" + client_input + "', which feeds '" + step_input +
                           "' of step '" + spec_.tokenize.model_name + "'; regenerate the repository");
      }
    }
    CheckTensorDeclared(config_, spec_.text_output, true);
    // Triton checks required inputs on some endpoints only (2.51's HTTP generate lets a request
    // without one through), so the orchestrator checks them itself, naming what is missing.
    for (const auto& input : config_.json.value("input", nlohmann::json::array())) {
      if (!input.value("optional", false)) required_inputs_.push_back(input.value("name", ""));
    }
    Check(TRITONBACKEND_ModelServer(model, &server_), "finding the server");
    // The config's "orchestrates" names the model step to call (the generated name by default):
    // deploy loads a trial copy of the pipeline under staging names, whose orchestrator must call
    // the staged model step, not the one being served.
    target_ = config_.Parameter("orchestrates").value_or(spec_.target);
    // Config parameters override the generated defaults, as on the steps themselves.
    const bool add_special_tokens = config_.BoolParameter("add_special_tokens", spec_.tokenize.add_special_tokens);
    skip_special_tokens_ = config_.BoolParameter("skip_special_tokens", spec_.detokenize.skip_special_tokens);
    auto tokenizer = LoadTokenizer(model, spec_.tokenize.tokenizer_file);
    detokenizer_ = spec_.detokenize.tokenizer_file == spec_.tokenize.tokenizer_file
                       ? tokenizer
                       : LoadTokenizer(model, spec_.detokenize.tokenizer_file);
    tokenize_batching_ = spec_.tokenize.max_batch_size > 0;
    // An LLM's prompt: truncation/padding only where tokenizer.json or the parameters set them.
    runner_ = std::make_unique<TokenizeRunner>(spec_.tokenize, tokenizer, add_special_tokens, tokenize_batching_,
                                               LoadChatPrompt(model, spec_.tokenize), InputLimits::FromConfig(config_),
                                               EncoderOptionsFromConfig(config_, *tokenizer, false));
    // The hooks' inputs (a system prompt, ...) are ports of the tokenize step, so they come from the
    // client's inputs wired to them (tokenize_inputs), as in the ensemble; an unwired one reads "".
    for (const auto& input : spec_.target_inputs) {
      if (input.from_tokenize) tokenize_outputs_.insert(input.source);
    }
    Check(TRITONSERVER_ResponseAllocatorNew(&allocator_, Allocate, ReleaseBuffer, nullptr),
          "creating the response allocator");
  }

  ~OrchestratorModel() override {
    if (allocator_ != nullptr) LogIfError(TRITONSERVER_ResponseAllocatorDelete(allocator_), "deleting the allocator");
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    const uint64_t exec_start = glue::NowNs();
    for (uint32_t i = 0; i < count; ++i) {
      auto* answer = new Answer;
      answer->model = this;
      answer->instance = instance;
      answer->request = requests[i];
      answer->exec_start = exec_start;
      try {
        Check(TRITONBACKEND_ResponseFactoryNew(&answer->factory, answer->request), "creating a response factory");
        Start(answer);
      } catch (...) {
        Abandon(answer, glue::CurrentExceptionToError("model '" + config_.name + "'"));
      }
    }
    const uint64_t now = glue::NowNs();
    LogIfError(TRITONBACKEND_ModelInstanceReportBatchStatistics(instance, count, exec_start, exec_start, now, now),
               "reporting batch statistics");
  }

  // --- model request callbacks (the Answer's mutex held) ---------------------------------------

  void HandleResponse(Answer* a, TRITONSERVER_InferenceResponse* response, bool final) {
    if (a->client_done) return;  // after a stop, a cancellation or an error the rest is discarded
    bool cancelled = false;
    LogIfError(TRITONBACKEND_RequestIsCancelled(a->request, &cancelled), "reading cancellation");
    if (cancelled) {
      CancelTarget(a);
      FinishWithError(a, TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_CANCELLED, "the request was cancelled"));
      return;
    }
    if (TRITONSERVER_Error* err = TRITONSERVER_InferenceResponseError(response)) {  // owned by the response
      a->failed = true;
      FinishWithError(a, TRITONSERVER_ErrorNew(TRITONSERVER_ErrorCode(err),
                                               ("model '" + target_ + "': " + TRITONSERVER_ErrorMessage(err)).c_str()));
      return;
    }
    try {
      std::optional<InputTensor> tokens, lengths;
      ReadTargetOutputs(response, &tokens, &lengths);
      if (!tokens) {
        throw BackendError("model '" + target_ + "' sent a response without its output '" + spec_.target_tokens + "'");
      }
      if (final && a->text->rows() == 0) {
        // The whole answer in one response (the client did not ask to stream): afterDecode.
        Finish(a, a->text->Whole(*tokens, lengths));
        return;
      }
      std::vector<std::string> deltas = a->text->Push(*tokens, lengths);
      if (a->text->stopped()) {
        // Stop means stop: the text is complete, and the model need not generate any further.
        CancelTarget(a);
        Finish(a, deltas);
      } else if (final) {
        const std::vector<std::string> rest = a->text->Finish();
        for (size_t i = 0; i < deltas.size(); ++i) deltas[i] += rest[i];
        Finish(a, deltas);
      } else if (AnyText(deltas)) {
        Send(a, deltas, false);
      }
    } catch (...) {
      a->failed = true;
      CancelTarget(a);
      FinishWithError(a, glue::CurrentExceptionToError("model '" + config_.name + "'"));
    }
  }

  // The model's FINAL came without a response (or after one already handled).
  void HandleEnd(Answer* a) {
    if (a->client_done) return;
    try {
      Finish(a, a->text->rows() > 0 ? a->text->Finish() : std::vector<std::string>{""});
    } catch (...) {
      a->failed = true;
      FinishWithError(a, glue::CurrentExceptionToError("model '" + config_.name + "'"));
    }
  }

  // Both the model's last response and its request's release have arrived: nothing refers to the
  // Answer any more.
  void Complete(Answer* a) {
    const uint64_t now = glue::NowNs();
    LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(a->instance, a->request, !a->failed, a->exec_start,
                                                           a->compute_start, now, now),
               "reporting request statistics");
    glue::ReleaseRequest(a->request);
    LogIfError(TRITONBACKEND_ResponseFactoryDelete(a->factory), "deleting a response factory");
    LogIfError(TRITONSERVER_InferenceRequestDelete(a->target), "deleting the model request");
    delete a;
  }

 private:
  // Tokenizes the client's request and sends the model step its token request.
  void Start(Answer* a) {
    TRITONBACKEND_Request* request = a->request;
    CheckRequiredInputs(request);
    const InputLookup lookup = [this, request](const std::string& step_input) -> std::optional<InputTensor> {
      for (const auto& [name, client_input] : spec_.tokenize_inputs) {
        if (name == step_input) return glue::ReadInput(request, client_input);
      }
      return std::nullopt;
    };
    glue::RequestResult tokenized =
        runner_->Run(lookup, tokenize_outputs_, BeforeEncodeHook(spec_.tokenize_hooks, lookup, tokenize_batching_));

    std::vector<std::string> stops;
    if (!spec_.stop_words_input.empty()) {
      if (auto words = glue::ReadInput(request, spec_.stop_words_input)) stops = words->Strings();
    }
    a->text = std::make_unique<AnswerText>(*detokenizer_, skip_special_tokens_, std::move(stops),
                                           spec_.detokenize.tokens.dims.size(), spec_.detokenize.max_batch_size > 0,
                                           &spec_.detokenize_hooks);

    for (const auto& input : spec_.target_inputs) {
      OutputTensor tensor;
      if (input.from_tokenize) {
        for (auto& out : tokenized.outputs) {
          if (out.name == input.source) tensor = std::move(out);
        }
        if (tensor.name.empty()) throw BackendError("step '" + spec_.tokenize.model_name + "' made no '" + input.source + "'");
      } else {
        std::optional<InputTensor> sent = glue::ReadInput(request, input.source);
        if (!sent) continue;  // an optional input the client left out
        tensor.dtype = sent->dtype;
        tensor.shape = std::move(sent->shape);
        tensor.data = std::move(sent->data);
      }
      tensor.name = input.name;
      a->target_inputs.push_back(std::move(tensor));
    }

    Check(TRITONSERVER_InferenceRequestNew(&a->target, server_, target_.c_str(), -1), "creating the model request");
    for (const auto& t : a->target_inputs) {
      Check(TRITONSERVER_InferenceRequestAddInput(a->target, t.name.c_str(), t.dtype, t.shape.data(), t.shape.size()),
            ("adding input '" + t.name + "' to the model request").c_str());
      Check(TRITONSERVER_InferenceRequestAppendInputData(a->target, t.name.c_str(), t.data.data(), t.data.size(),
                                                         TRITONSERVER_MEMORY_CPU, 0),
            ("adding the data of input '" + t.name + "'").c_str());
    }
    Check(TRITONSERVER_InferenceRequestAddRequestedOutput(a->target, spec_.target_tokens.c_str()),
          "requesting the token output");
    if (!spec_.target_sequence_length.empty()) {
      Check(TRITONSERVER_InferenceRequestAddRequestedOutput(a->target, spec_.target_sequence_length.c_str()),
            "requesting the sequence-length output");
    }
    Check(TRITONSERVER_InferenceRequestSetReleaseCallback(a->target, OnTargetReleased, a), "setting the release callback");
    Check(TRITONSERVER_InferenceRequestSetResponseCallback(a->target, allocator_, nullptr, OnTargetResponse, a),
          "setting the response callback");
    a->compute_start = glue::NowNs();
    if (TRITONSERVER_Error* err = TRITONSERVER_ServerInferAsync(server_, a->target, nullptr)) {
      const std::string message = TRITONSERVER_ErrorMessage(err);
      const TRITONSERVER_Error_Code code = TRITONSERVER_ErrorCode(err);
      TRITONSERVER_ErrorDelete(err);
      throw BackendError("cannot send the tokens to model '" + target_ + "': " + message, code);
    }
    // From here on the callbacks own the Answer.
  }

  void CheckRequiredInputs(TRITONBACKEND_Request* request) const {
    uint32_t count = 0;
    Check(TRITONBACKEND_RequestInputCount(request, &count), "counting request inputs");
    std::set<std::string> sent;
    for (uint32_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      Check(TRITONBACKEND_RequestInputName(request, i, &name), "reading an input name");
      sent.insert(name);
    }
    std::string missing;
    for (const auto& name : required_inputs_) {
      if (!sent.count(name)) missing += (missing.empty() ? "'" : ", '") + name + "'";
    }
    if (!missing.empty()) {
      throw BackendError("the request has no input " + missing + ", which this model requires (send " +
                         (missing.find(',') == std::string::npos ? "it" : "them") + " with the request)");
    }
  }

  // Before the model request was sent: answer with the error and free everything now.
  void Abandon(Answer* a, TRITONSERVER_Error* error) {
    if (a->factory != nullptr) {
      FinishWithError(a, error);
      LogIfError(TRITONBACKEND_ResponseFactoryDelete(a->factory), "deleting a response factory");
    } else {
      glue::SendError(a->request, error);
    }
    const uint64_t now = glue::NowNs();
    LogIfError(TRITONBACKEND_ModelInstanceReportStatistics(a->instance, a->request, false, a->exec_start, a->exec_start,
                                                           now, now),
               "reporting request statistics");
    glue::ReleaseRequest(a->request);
    if (a->target != nullptr) LogIfError(TRITONSERVER_InferenceRequestDelete(a->target), "deleting the model request");
    delete a;
  }

  void ReadTargetOutputs(TRITONSERVER_InferenceResponse* response, std::optional<InputTensor>* tokens,
                         std::optional<InputTensor>* lengths) const {
    uint32_t count = 0;
    Check(TRITONSERVER_InferenceResponseOutputCount(response, &count), "counting the model's outputs");
    for (uint32_t i = 0; i < count; ++i) {
      const char* name = nullptr;
      TRITONSERVER_DataType dtype = TRITONSERVER_TYPE_INVALID;
      const int64_t* shape = nullptr;
      uint64_t dims = 0;
      const void* base = nullptr;
      size_t byte_size = 0;
      TRITONSERVER_MemoryType memory_type = TRITONSERVER_MEMORY_CPU;
      int64_t memory_type_id = 0;
      void* userp = nullptr;
      Check(TRITONSERVER_InferenceResponseOutput(response, i, &name, &dtype, &shape, &dims, &base, &byte_size,
                                                 &memory_type, &memory_type_id, &userp),
            "reading a model output");
      std::optional<InputTensor>* into =
          spec_.target_tokens == name ? tokens : (spec_.target_sequence_length == name ? lengths : nullptr);
      if (into == nullptr) continue;
      InputTensor t;
      t.name = name;
      t.dtype = dtype;
      t.shape.assign(shape, shape + dims);
      const char* bytes = static_cast<const char*>(base);
      t.data.assign(bytes, bytes + byte_size);
      *into = std::move(t);
    }
  }

  static bool AnyText(const std::vector<std::string>& deltas) {
    for (const auto& d : deltas) {
      if (!d.empty()) return true;
    }
    return false;
  }

  OutputTensor TextTensor(const Answer* a, const std::vector<std::string>& texts) const {
    const int64_t rows = std::max<int64_t>(a->text->rows(), 1);
    const int64_t beams = std::max<int64_t>(a->text->beams(), 1);
    // One string per beam, shaped to the output's declared rank ([beam] or e.g. [beam, 1]).
    std::vector<int64_t> dims{beams};
    while (dims.size() < spec_.text_output.dims.size()) dims.push_back(1);
    std::vector<std::string> values = texts;
    values.resize(static_cast<size_t>(rows * beams));
    return OutputTensor::Strings(spec_.text_output.name, glue::WithBatch(config_.batching(), rows, dims), values);
  }

  void Send(Answer* a, const std::vector<std::string>& texts, bool final) {
    TRITONBACKEND_Response* response = nullptr;
    Check(TRITONBACKEND_ResponseNewFromFactory(&response, a->factory), "creating a response");
    try {
      glue::WriteOutputs(response, {TextTensor(a, texts)});
    } catch (...) {
      LogIfError(TRITONBACKEND_ResponseDelete(response), "deleting a partial response");
      throw;
    }
    LogIfError(TRITONBACKEND_ResponseSend(response, final ? TRITONSERVER_RESPONSE_COMPLETE_FINAL : 0, nullptr),
               "sending a response");
    a->sent_any = true;
    if (final) a->client_done = true;
  }

  // The last response: with text when there is any left (or nothing was sent yet: a non-streaming
  // client expects one response), else only the FINAL flag.
  void Finish(Answer* a, const std::vector<std::string>& texts) {
    if (AnyText(texts) || !a->sent_any) {
      Send(a, texts, true);
    } else {
      LogIfError(TRITONBACKEND_ResponseFactorySendFlags(a->factory, TRITONSERVER_RESPONSE_COMPLETE_FINAL),
                 "sending the final flag");
      a->client_done = true;
    }
  }

  void FinishWithError(Answer* a, TRITONSERVER_Error* error) {
    // The stream ends here too: endStream runs (its text has no one to go to) before the state goes.
    if (a->text) a->text->Abandon();
    TRITONBACKEND_Response* response = nullptr;
    if (TRITONSERVER_Error* err = TRITONBACKEND_ResponseNewFromFactory(&response, a->factory)) {
      LogIfError(err, "creating an error response");
      TS_LOG(TRITONSERVER_LOG_ERROR, std::string("undeliverable error: ") + TRITONSERVER_ErrorMessage(error));
    } else {
      LogIfError(TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, error),
                 "sending an error response");
    }
    TRITONSERVER_ErrorDelete(error);
    a->client_done = true;
  }

  static void CancelTarget(Answer* a) {
    if (a->cancel_sent || a->target == nullptr) return;
    a->cancel_sent = true;
    LogIfError(TRITONSERVER_InferenceRequestCancel(a->target), "cancelling the model request");
  }

  static void Check(TRITONSERVER_Error* err, const char* what) { glue::Check(err, what); }

  OrchestratorSpec spec_;
  std::string target_;  // the model step this orchestrator calls
  glue::ModelConfig config_;
  TRITONSERVER_Server* server_ = nullptr;
  TRITONSERVER_ResponseAllocator* allocator_ = nullptr;
  bool skip_special_tokens_ = true;
  bool tokenize_batching_ = false;
  std::shared_ptr<const tok::Tokenizer> detokenizer_;
  std::unique_ptr<TokenizeRunner> runner_;
  std::set<std::string> tokenize_outputs_;
  std::vector<std::string> required_inputs_;
};

void OnTargetResponse(TRITONSERVER_InferenceResponse* response, const uint32_t flags, void* userp) {
  auto* a = static_cast<Answer*>(userp);
  const bool final = (flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL) != 0;
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(a->mutex);
    if (response != nullptr) {
      a->model->HandleResponse(a, response, final);
      LogIfError(TRITONSERVER_InferenceResponseDelete(response), "deleting a model response");
    }
    if (final) {
      a->model->HandleEnd(a);
      a->target_final = true;
    }
    done = a->target_final && a->target_released;
  }
  if (done) a->model->Complete(a);
}

void OnTargetReleased(TRITONSERVER_InferenceRequest*, const uint32_t, void* userp) {
  auto* a = static_cast<Answer*>(userp);
  bool done = false;
  {
    std::lock_guard<std::mutex> lock(a->mutex);
    a->target_released = true;
    done = a->target_final;
  }
  if (done) a->model->Complete(a);
}

}  // namespace

std::unique_ptr<glue::BackendModel> CreateOrchestratorModel(TRITONBACKEND_Model* model, const OrchestratorSpec& spec) {
  return std::make_unique<OrchestratorModel>(model, spec);
}

}  // namespace triton_studio::steps
