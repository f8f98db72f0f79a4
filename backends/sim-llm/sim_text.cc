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
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

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
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
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
};

}  // namespace

std::unique_ptr<glue::BackendModel> CreateTextModel(glue::ModelConfig config) {
  return std::make_unique<SimTextModel>(std::move(config));
}

}  // namespace triton_studio::sim_llm
