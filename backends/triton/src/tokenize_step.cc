// The tokenize step: prompt strings -> padded token ids (+ lengths, pass-through output length,
// TensorRT-LLM word lists, end/pad ids, embedding bias), for every interface a TokenizeSpec can
// describe.
#include <algorithm>

#include "encoder_options.h"
#include "step_common.h"
#include "tokenize_runner.h"

namespace triton_studio::steps {
namespace {

using glue::BackendError;
using glue::InputTensor;
using glue::OutputTensor;

// TensorRT-LLM's word-list layout for one batch row: the ids of all words back to back, and the
// cumulative end offset of each word. Rows are padded to a common length (ids with 0, offsets
// with -1) into [rows, 2, L]; L is at least 1 so "no words" is still a well-formed tensor.
struct WordLists {
  std::vector<std::vector<int64_t>> ids;
  std::vector<std::vector<int64_t>> offsets;
};

class TokenizeModel : public glue::BackendModel {
 public:
  TokenizeModel(TRITONBACKEND_Model* model, const TokenizeSpec& spec, const StepHooks& hooks) : hooks_(hooks) {
    config_ = glue::ReadModelConfig(model);
    NoteBatchSizeDifference(config_, spec.max_batch_size);
    CheckTensorDeclared(config_, spec.text, false);
    for (const auto* in : {&spec.text_pair, &spec.request_output_len_in, &spec.bad_words, &spec.stop_words, &spec.end_id_in,
                           &spec.pad_id_in, &spec.embedding_bias_words, &spec.embedding_bias_weights}) {
      if (*in) CheckTensorDeclared(config_, **in, false);
    }
    CheckTensorDeclared(config_, spec.input_ids, true);
    for (const auto* out : {&spec.input_length, &spec.request_output_len_out, &spec.bad_words_ids,
                            &spec.stop_words_ids, &spec.end_id, &spec.pad_id, &spec.attention_mask,
                            &spec.token_type_ids, &spec.embedding_bias}) {
      if (*out) CheckTensorDeclared(config_, **out, true);
    }
    // TensorRT-LLM's preprocessing takes this as a config parameter; honour it the same way.
    const bool add_special_tokens = config_.BoolParameter("add_special_tokens", spec.add_special_tokens);
    auto tokenizer = LoadTokenizer(model, spec.tokenizer_file);
    const bool encoder = spec.text_pair || spec.token_type_ids || (spec.attention_mask && !spec.messages);
    auto encoder_options = EncoderOptionsFromConfig(config_, *tokenizer, encoder);
    runner_ = std::make_unique<TokenizeRunner>(spec, std::move(tokenizer), add_special_tokens, config_.batching(),
                                               LoadChatPrompt(model, spec), InputLimits::FromConfig(config_),
                                               std::move(encoder_options));
  }

  void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, uint32_t count) override {
    glue::ExecuteEach(instance, config_.name, requests, count, [this](TRITONBACKEND_Request* request) {
      const InputLookup inputs = [request](const std::string& name) { return glue::ReadInput(request, name); };
      return runner_->Run(inputs, glue::RequestedOutputs(request),
                          BeforeEncodeHook(hooks_, inputs, config_.batching()));
    });
  }

 private:
  StepHooks hooks_;
  glue::ModelConfig config_;
  std::unique_ptr<TokenizeRunner> runner_;
};

}  // namespace

PromptHook BeforeEncodeHook(const StepHooks& hooks, const InputLookup& inputs, bool batching) {
  if (!hooks.before_encode) return nullptr;
  // Each hook input is read once per request, when the first row needs it.
  auto values = std::make_shared<std::vector<std::optional<std::vector<std::string>>>>(hooks.input_names.size());
  return [&hooks, inputs, batching, values](const std::string& prompt, int64_t row) {
    std::vector<std::string> row_inputs(hooks.input_names.size());
    for (size_t i = 0; i < hooks.input_names.size(); ++i) {
      auto& column = (*values)[i];
      if (!column) {
        const auto tensor = inputs(hooks.input_names[i]);
        column = tensor ? tensor->Strings() : std::vector<std::string>{};
        if (tensor && SplitRows(*tensor, batching).per_row != 1) {
          throw BackendError("input '" + tensor->name + "' must hold one string per " +
                             (batching ? std::string("batch row") : std::string("request")) + ", got shape " +
                             glue::ShapeToString(tensor->shape));
        }
      }
      if (column->empty()) continue;  // not sent: the hook sees ""
      if (static_cast<size_t>(row) >= column->size()) {
        throw BackendError("input '" + hooks.input_names[i] + "' has " + std::to_string(column->size()) +
                           " rows but the prompt has more");
      }
      row_inputs[i] = (*column)[static_cast<size_t>(row)];
    }
    return hooks.before_encode(prompt, row_inputs);
  };
}

std::shared_ptr<const ChatPrompt> LoadChatPrompt(TRITONBACKEND_Model* model, const TokenizeSpec& spec) {
  if (spec.chat_template_file.empty()) return nullptr;
  return ChatPrompt::Load(glue::ModelVersionDirectory(model) + "/" + spec.chat_template_file);
}

InputLimits InputLimits::FromConfig(const glue::ModelConfig& config) {
  auto read = [&](const char* key, uint64_t fallback) {
    const double value = config.NumberParameter(key, static_cast<double>(fallback));
    if (value < 1 || value != static_cast<double>(static_cast<uint64_t>(value)))
      throw BackendError("model '" + config.name + "': parameter '" + key + "' must be a whole number >= 1");
    return static_cast<uint64_t>(value);
  };
  return {read("max_input_bytes", kDefaultMaxBytes), read("max_input_tokens", kDefaultMaxTokens)};
}

TokenizeRunner::TokenizeRunner(const TokenizeSpec& spec, std::shared_ptr<const tok::Tokenizer> tokenizer,
                               bool add_special_tokens, bool batching, std::shared_ptr<const ChatPrompt> chat,
                               InputLimits limits, std::optional<tok::EncoderOptions> encoder_options)
    : spec_(spec),
      tokenizer_(std::move(tokenizer)),
      add_special_tokens_(add_special_tokens),
      batching_(batching),
      limits_(limits),
      encoder_options_(encoder_options ? *encoder_options : tokenizer_->EncoderDefaults()),
      chat_(std::move(chat)) {
  if (spec_.messages && !chat_) {
    throw BackendError("input '" + spec_.messages->name +
                       "' takes conversations but the step has no chat template; give the step's tokenizer a "
                       "tokenizer_config.json with a chat_template, or name a template with \"chatTemplate\"");
  }
  if (spec_.request_output_len_out && !spec_.request_output_len_in) {
    throw BackendError("output '" + spec_.request_output_len_out->name +
                       "' is a pass-through but the step has no request-output-length input");
  }
  const auto eos = tokenizer_->EosId();
  const auto pad = tokenizer_->PadId();
  pad_value_ = pad ? *pad : eos ? *eos : 0;
  if ((spec_.end_id || spec_.pad_id) && !eos && !pad) {
    throw BackendError("the tokenizer declares no end-of-sequence or padding token, so the step cannot fill "
                       "its end/pad id outputs; remove them from the step or use a tokenizer that has one");
  }
}

// A conversation step's mask comes from the chat path (one BOS, the template's specials).
bool TokenizeRunner::IsEncoder() const {
  return spec_.text_pair || spec_.token_type_ids || (spec_.attention_mask && !spec_.messages);
}

glue::RequestResult TokenizeRunner::Run(const InputLookup& inputs, const std::set<std::string>& requested,
                                        const PromptHook& before_encode) const {
  const bool batching = batching_;
  auto wanted = [&](const std::optional<TensorSpec>& spec) { return spec && requested.count(spec->name) > 0; };

  int64_t n = 0;
  std::vector<std::vector<uint32_t>> encoded, masks, type_ids;
  if (IsEncoder()) {
    for (tok::Encoding& e : EncodeEncoderRows(inputs, before_encode, &n)) {
      encoded.push_back(std::move(e.ids));
      masks.push_back(std::move(e.attention_mask));
      type_ids.push_back(std::move(e.type_ids));
    }
  } else {
    encoded = EncodeRows(inputs, before_encode, &n);
    for (const auto& e : encoded) masks.emplace_back(e.size(), 1);
  }
  size_t longest = 0;
  for (const auto& e : encoded) longest = std::max(longest, e.size());

  glue::RequestResult result;
  result.batch_size = static_cast<uint64_t>(n);
  const int64_t width = static_cast<int64_t>(longest);

  if (requested.count(spec_.input_ids.name)) {
    std::vector<int64_t> ids(static_cast<size_t>(n * width), pad_value_);
    for (int64_t r = 0; r < n; ++r) {
      std::copy(encoded[r].begin(), encoded[r].end(), ids.begin() + r * width);
    }
    result.outputs.push_back(OutputTensor::Integers(spec_.input_ids.name, spec_.input_ids.dtype,
                                                    glue::WithBatch(batching, n, {width}), ids));
  }
  // Rows the tokenizer did not pad to the batch's width are padded here: mask 0, type id 0.
  const auto padded = [&](const std::vector<std::vector<uint32_t>>& rows) {
    std::vector<int64_t> values(static_cast<size_t>(n * width), 0);
    for (int64_t r = 0; r < n; ++r) std::copy(rows[r].begin(), rows[r].end(), values.begin() + r * width);
    return values;
  };
  if (wanted(spec_.attention_mask)) {
    result.outputs.push_back(OutputTensor::Integers(spec_.attention_mask->name, spec_.attention_mask->dtype,
                                                    glue::WithBatch(batching, n, {width}), padded(masks)));
  }
  if (wanted(spec_.token_type_ids)) {
    result.outputs.push_back(OutputTensor::Integers(spec_.token_type_ids->name, spec_.token_type_ids->dtype,
                                                    glue::WithBatch(batching, n, {width}), padded(type_ids)));
  }
  if (wanted(spec_.input_length)) {
    // The real tokens of each row: padding the tokenizer added (mask 0) does not count.
    std::vector<int64_t> lengths;
    for (const auto& m : masks) lengths.push_back(std::count(m.begin(), m.end(), 1u));
    result.outputs.push_back(OutputTensor::Integers(spec_.input_length->name, spec_.input_length->dtype,
                                                    glue::WithBatch(batching, n, {1}), lengths));
  }
  AppendControlOutputs(inputs, requested, n, &result);
  return result;
}

std::optional<std::vector<std::string>> TokenizeRunner::RowStrings(const InputLookup& inputs,
                                                                   const std::optional<TensorSpec>& spec) const {
  if (!spec) return std::nullopt;
  const std::optional<InputTensor> tensor = inputs(spec->name);
  if (!tensor) return std::nullopt;
  const Rows split = SplitRows(*tensor, batching_);
  if (split.per_row != 1) {
    throw BackendError("input '" + tensor->name + "' must hold one string per " +
                       (batching_ ? std::string("batch row") : std::string("request")) + ", got shape " +
                       glue::ShapeToString(tensor->shape));
  }
  // Each element is a 4-byte length and its bytes: a buffer this large holds a row over the limit,
  // refused before it is decoded or tokenized.
  const uint64_t elements = static_cast<uint64_t>(std::max<int64_t>(tensor->ElementCount(), 1));
  if (tensor->data.size() > (limits_.max_bytes + 4) * elements) {
    throw BackendError("input '" + tensor->name + "' holds " + std::to_string(tensor->data.size()) +
                       " bytes, over this step's limit of " + std::to_string(limits_.max_bytes) +
                       " per prompt (parameter max_input_bytes): shorten the prompt or raise the limit");
  }
  return tensor->Strings();
}

// The text that is encoded (a hook's or the chat template's output) is bounded too, and so is
// what the encoding gives, before anything reaches the model.
std::vector<uint32_t> TokenizeRunner::EncodeBounded(const std::string& text, bool add_special) const {
  if (text.size() > limits_.max_bytes) {
    throw BackendError("the prompt is " + std::to_string(text.size()) + " bytes, over this step's limit of " +
                       std::to_string(limits_.max_bytes) +
                       " (parameter max_input_bytes): shorten the prompt or raise the limit");
  }
  std::vector<uint32_t> ids = tokenizer_->Encode(text, add_special);
  if (ids.size() > limits_.max_tokens) {
    throw BackendError("the prompt is " + std::to_string(ids.size()) + " tokens, over this step's limit of " +
                       std::to_string(limits_.max_tokens) +
                       " (parameter max_input_tokens): shorten the prompt or raise the limit");
  }
  return ids;
}

std::vector<std::vector<uint32_t>> TokenizeRunner::EncodeRows(const InputLookup& inputs,
                                                              const PromptHook& before_encode, int64_t* rows) const {
  const auto texts = RowStrings(inputs, spec_.text);
  const auto conversations = RowStrings(inputs, spec_.messages);
  if (!texts && !conversations) {
    throw BackendError("the request has no input '" + spec_.text.name + "'" +
                       (spec_.messages ? " and no '" + spec_.messages->name + "'; send a prompt or a conversation"
                                       : std::string(", which this model requires")));
  }
  const auto row_count = [](const std::optional<std::vector<std::string>>& v) { return v ? v->size() : size_t{0}; };
  if (texts && conversations && texts->size() != conversations->size()) {
    throw BackendError("inputs '" + spec_.text.name + "' and '" + spec_.messages->name + "' have " +
                       std::to_string(texts->size()) + " and " + std::to_string(conversations->size()) +
                       " rows; send one row each, or only one of them");
  }
  const size_t n = std::max(row_count(texts), row_count(conversations));
  const auto tools = RowStrings(inputs, spec_.tools);
  const auto kwargs = RowStrings(inputs, spec_.chat_template_kwargs);
  const auto cell = [n](const std::optional<std::vector<std::string>>& column, size_t r) -> std::string {
    if (!column || column->empty()) return "";
    if (column->size() != n) {
      throw BackendError("a chat input has " + std::to_string(column->size()) + " rows but the request has " +
                         std::to_string(n));
    }
    return (*column)[r];
  };
  std::vector<std::vector<uint32_t>> encoded;
  encoded.reserve(n);
  for (size_t r = 0; r < n; ++r) {
    const std::string conversation = cell(conversations, r);
    if (!conversation.empty()) {
      // As apply_chat_template(tokenize=True): the rendered text already holds the BOS the
      // template writes, so nothing is added (a second BOS would change the model's input).
      encoded.push_back(EncodeBounded(chat_->Render(conversation, cell(tools, r), cell(kwargs, r)), false));
    } else if (texts) {
      const std::string& prompt = (*texts)[r];
      const std::string text = before_encode ? before_encode(prompt, static_cast<int64_t>(r)) : prompt;
      encoded.push_back(WithoutRepeatedBos(EncodeBounded(text, add_special_tokens_), text));
    } else {
      throw BackendError("row " + std::to_string(r) + " of input '" + spec_.messages->name +
                         "' is empty and the request has no '" + spec_.text.name + "'");
    }
  }
  *rows = static_cast<int64_t>(n);
  return encoded;
}

std::vector<tok::Encoding> TokenizeRunner::EncodeEncoderRows(const InputLookup& inputs, const PromptHook& before_encode,
                                                             int64_t* rows) const {
  const auto strings = [&](const TensorSpec& spec) -> std::optional<std::vector<std::string>> {
    const std::optional<InputTensor> tensor = inputs(spec.name);
    if (!tensor) return std::nullopt;
    if (SplitRows(*tensor, batching_).per_row != 1) {
      throw BackendError("input '" + tensor->name + "' must hold one string per " +
                         (batching_ ? std::string("batch row") : std::string("request")) + ", got shape " +
                         glue::ShapeToString(tensor->shape));
    }
    std::vector<std::string> values = tensor->Strings();
    for (const std::string& v : values) {
      if (v.size() > limits_.max_bytes) {
        throw BackendError("input '" + tensor->name + "' holds a text of " + std::to_string(v.size()) +
                           " bytes, over this step's limit of " + std::to_string(limits_.max_bytes) +
                           " (parameter max_input_bytes): shorten it or raise the limit");
      }
    }
    return values;
  };
  std::optional<std::vector<std::string>> texts = strings(spec_.text);
  if (!texts) throw BackendError("the request has no input '" + spec_.text.name + "', which this model requires");
  const std::optional<std::vector<std::string>> pairs = spec_.text_pair ? strings(*spec_.text_pair) : std::nullopt;
  if (pairs && pairs->size() != texts->size()) {
    throw BackendError("inputs '" + spec_.text.name + "' and '" + spec_.text_pair->name + "' have " +
                       std::to_string(texts->size()) + " and " + std::to_string(pairs->size()) +
                       " rows; send one second text per text");
  }
  if (before_encode) {
    for (size_t r = 0; r < texts->size(); ++r) (*texts)[r] = before_encode((*texts)[r], static_cast<int64_t>(r));
  }
  std::vector<tok::EncodeInput> rows_in;
  for (size_t r = 0; r < texts->size(); ++r)
    rows_in.push_back({(*texts)[r], pairs ? std::optional<std::string_view>((*pairs)[r]) : std::nullopt});
  std::vector<tok::Encoding> out;
  try {
    out = tokenizer_->EncodeBatch(rows_in, add_special_tokens_, encoder_options_);
  } catch (const tok::TokenizerError& e) {
    throw BackendError(e.what());  // a refused truncation fails this request only
  }
  for (const tok::Encoding& e : out) {
    if (e.ids.size() > limits_.max_tokens) {
      throw BackendError("a row is " + std::to_string(e.ids.size()) + " tokens, over this step's limit of " +
                         std::to_string(limits_.max_tokens) +
                         " (parameter max_input_tokens): set the tokenizer's truncation or raise the limit");
    }
  }
  *rows = static_cast<int64_t>(out.size());
  return out;
}

// A prompt already rendered by a chat template (Triton's OpenAI frontend sends
// apply_chat_template(tokenize=False)'s text) starts with the template's BOS: the tokenizer's own in
// front would give the model two. The added one is dropped when the text's own ids start with it, so
// the ids equal apply_chat_template(tokenize=True)'s; ids[0] == ids[1] is rare, so the second
// encoding almost never runs.
std::vector<uint32_t> TokenizeRunner::WithoutRepeatedBos(std::vector<uint32_t> ids, const std::string& text) const {
  if (!add_special_tokens_ || ids.size() < 2 || ids[0] != ids[1]) return ids;
  const std::vector<uint32_t> own = tokenizer_->Encode(text, false);
  if (own.empty() || own[0] != ids[0] || ids.size() <= own.size()) return ids;
  ids.erase(ids.begin());
  return ids;
}

OutputTensor TokenizeRunner::WordListOutput(const InputLookup& inputs, const std::optional<TensorSpec>& input,
                                          const TensorSpec& output, int64_t rows, bool batching) const {
  std::vector<std::vector<std::string>> words(static_cast<size_t>(rows));
  if (input) {
    if (auto tensor = inputs(input->name)) {
      const Rows split = SplitRows(*tensor, batching);
      if (split.rows != rows) {
        throw BackendError("input '" + tensor->name + "' has " + std::to_string(split.rows) + " rows but '" +
                           spec_.text.name + "' has " + std::to_string(rows));
      }
      const std::vector<std::string> all = tensor->Strings();
      for (int64_t r = 0; r < rows; ++r) {
        words[r].assign(all.begin() + r * split.per_row, all.begin() + (r + 1) * split.per_row);
      }
    }
  }
  WordLists lists;
  size_t width = 1;
  // The model's end tokens stop generation like stop words (TensorRT-LLM takes one end_id).
  const bool add_end_ids = &input == &spec_.stop_words;
  for (const auto& row : words) {
    std::vector<int64_t> ids, offsets;
    for (const auto& word : row) {
      const std::vector<uint32_t> word_ids = tokenizer_->Encode(word, false);
      if (word_ids.empty()) continue;  // an empty word would end at the previous offset
      ids.insert(ids.end(), word_ids.begin(), word_ids.end());
      offsets.push_back(static_cast<int64_t>(ids.size()));
    }
    if (add_end_ids) {
      for (const int64_t id : spec_.end_ids) {
        ids.push_back(id);
        offsets.push_back(static_cast<int64_t>(ids.size()));
      }
    }
    width = std::max({width, ids.size(), offsets.size()});
    lists.ids.push_back(std::move(ids));
    lists.offsets.push_back(std::move(offsets));
  }
  std::vector<int64_t> values;
  values.reserve(static_cast<size_t>(rows) * 2 * width);
  for (int64_t r = 0; r < rows; ++r) {
    auto ids = lists.ids[r];
    ids.resize(width, 0);
    auto offsets = lists.offsets[r];
    offsets.resize(width, -1);
    values.insert(values.end(), ids.begin(), ids.end());
    values.insert(values.end(), offsets.begin(), offsets.end());
  }
  return OutputTensor::Integers(output.name, output.dtype,
                                glue::WithBatch(batching, rows, {2, static_cast<int64_t>(width)}), values);
}

std::unique_ptr<glue::BackendModel> CreateTokenizeModel(TRITONBACKEND_Model* model, const TokenizeSpec& spec,
                                                        const StepHooks& hooks) {
  return std::make_unique<TokenizeModel>(model, spec, hooks);
}

}  // namespace triton_studio::steps
