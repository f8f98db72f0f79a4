// What the tokenize step computes for one request, apart from where its inputs come from: the
// tokenize step reads them from its own Triton request, the orchestrator from the client's.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "chat_prompt.h"
#include "triton_studio/glue.h"
#include "triton_studio/step_hooks.h"
#include "triton_studio/steps.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

// An input of the request by name; nullopt when the request does not carry it.
using InputLookup = std::function<std::optional<glue::InputTensor>(const std::string& name)>;
// Rewrites the prompt of batch row `row` before it is encoded (the before-encode hook).
using PromptHook = std::function<std::string(const std::string& prompt, int64_t row)>;

// The before-encode hook of `hooks` as a PromptHook over one request: each row's hook inputs
// (input_names) come through `inputs` ("" when the request does not send one); null when the
// module has no beforeEncode.
PromptHook BeforeEncodeHook(const StepHooks& hooks, const InputLookup& inputs, bool batching);

// How large a prompt the step takes, per batch row. Bytes are checked before the prompt is
// decoded or tokenized, so a huge prompt is refused at once instead of holding the instance (and
// everyone queued behind it) while it is tokenized; tokens right after encoding, before anything
// reaches the model. Config parameters `max_input_bytes` / `max_input_tokens` (from the pipeline
// step's "parameters") override the defaults.
struct InputLimits {
  // 1 MiB: about 250,000 tokens of English, beyond the context of most models.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{1} << 20;
  // 128 Ki tokens: the largest common context window; set the model's own `max_input_len`.
  static constexpr uint64_t kDefaultMaxTokens = uint64_t{1} << 17;
  uint64_t max_bytes = kDefaultMaxBytes;
  uint64_t max_tokens = kDefaultMaxTokens;

  // Throws BackendError for a value that is not a whole number ≥ 1 (at model load).
  static InputLimits FromConfig(const glue::ModelConfig& config);
};

// The step's chat template from its model version folder, parsed once (null when it has none);
// a template that cannot be parsed fails the model load, naming its line and column.
std::shared_ptr<const ChatPrompt> LoadChatPrompt(TRITONBACKEND_Model* model, const TokenizeSpec& spec);

class TokenizeRunner {
 public:
  // Throws BackendError when the spec cannot be served with this tokenizer (at model load).
  // `chat` renders the `messages` input (null: the step has no chat template).
  TokenizeRunner(const TokenizeSpec& spec, std::shared_ptr<const tok::Tokenizer> tokenizer, bool add_special_tokens,
                 bool batching, std::shared_ptr<const ChatPrompt> chat = nullptr, InputLimits limits = {},
                 std::optional<tok::EncoderOptions> encoder_options = std::nullopt);

  // The outputs named in `requested`, computed from the inputs `inputs` finds. A row whose
  // `messages` is sent (non-empty) is its conversation rendered with the chat template and encoded
  // without added special tokens (the template writes them); any other row is the text input's
  // prompt, through `before_encode`.
  glue::RequestResult Run(const InputLookup& inputs, const std::set<std::string>& requested,
                          const PromptHook& before_encode = nullptr) const;

  const tok::Tokenizer& tokenizer() const { return *tokenizer_; }

 private:
  // Each row as an encoder takes it (ids, type ids, attention mask), for steps with a second-text
  // input or a token-type-ids or attention-mask output: HF encode_batch with encoder_options_.
  bool IsEncoder() const;
  std::vector<tok::Encoding> EncodeEncoderRows(const InputLookup& inputs, const PromptHook& before_encode,
                                               int64_t* rows) const;
  // One string per row of `spec`'s input (absent: nullopt), its buffer bounded by max_input_bytes.
  std::optional<std::vector<std::string>> RowStrings(const InputLookup& inputs, const std::optional<TensorSpec>& spec) const;
  // `text`'s ids, the text and the ids bounded by max_input_bytes / max_input_tokens.
  std::vector<uint32_t> EncodeBounded(const std::string& text, bool add_special) const;
  // Each row's prompt ids and the number of rows.
  std::vector<std::vector<uint32_t>> EncodeRows(const InputLookup& inputs, const PromptHook& before_encode,
                                                int64_t* rows) const;
  // `ids` (the text encoded with special tokens added) without a BOS added in front of the text's own.
  std::vector<uint32_t> WithoutRepeatedBos(std::vector<uint32_t> ids, const std::string& text) const;
  glue::OutputTensor IdOutput(const InputLookup& inputs, const std::optional<TensorSpec>& input,
                              const TensorSpec& output, int64_t fallback, int64_t rows, bool batching) const;
  glue::OutputTensor EmbeddingBiasOutput(const InputLookup& inputs, int64_t rows, bool batching) const;
  void AppendControlOutputs(const InputLookup& inputs, const std::set<std::string>& requested, int64_t n,
                            glue::RequestResult* out) const;
  glue::OutputTensor WordListOutput(const InputLookup& inputs, const std::optional<TensorSpec>& input,
                                    const TensorSpec& output, int64_t rows, bool batching) const;

  TokenizeSpec spec_;
  std::shared_ptr<const tok::Tokenizer> tokenizer_;
  bool add_special_tokens_;
  bool batching_;
  InputLimits limits_;
  tok::EncoderOptions encoder_options_;  // truncation/padding: tokenizer.json's, overridden by parameters
  int64_t pad_value_ = 0;
  std::shared_ptr<const ChatPrompt> chat_;
};

}  // namespace triton_studio::steps
