// The tokenize step: prompt strings -> padded token ids (+ lengths, pass-through output length,
// TensorRT-LLM word lists, end/pad ids, embedding bias), for every interface a TokenizeSpec can
// describe.
#include <algorithm>

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
    for (const auto* in : {&spec.request_output_len_in, &spec.bad_words, &spec.stop_words, &spec.end_id_in,
                           &spec.pad_id_in, &spec.embedding_bias_words, &spec.embedding_bias_weights}) {
      if (*in) CheckTensorDeclared(config_, **in, false);
    }
    CheckTensorDeclared(config_, spec.input_ids, true);
    for (const auto* out : {&spec.input_length, &spec.request_output_len_out, &spec.bad_words_ids,
                            &spec.stop_words_ids, &spec.end_id, &spec.pad_id, &spec.attention_mask,
                            &spec.embedding_bias}) {
      if (*out) CheckTensorDeclared(config_, **out, true);
    }
    // TensorRT-LLM's preprocessing takes this as a config parameter; honour it the same way.
    const bool add_special_tokens = config_.BoolParameter("add_special_tokens", spec.add_special_tokens);
    runner_ = std::make_unique<TokenizeRunner>(spec, LoadTokenizer(model, spec.tokenizer_file), add_special_tokens,
                                               config_.batching(), InputLimits::FromConfig(config_));
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
                               bool add_special_tokens, bool batching, InputLimits limits)
    : spec_(spec),
      tokenizer_(std::move(tokenizer)),
      add_special_tokens_(add_special_tokens),
      batching_(batching),
      limits_(limits) {
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

glue::RequestResult TokenizeRunner::Run(const InputLookup& inputs, const std::set<std::string>& requested,
                                        const PromptHook& before_encode) const {
  const bool batching = batching_;
  auto wanted = [&](const std::optional<TensorSpec>& spec) { return spec && requested.count(spec->name) > 0; };

  std::optional<InputTensor> text_input = inputs(spec_.text.name);
  if (!text_input) {
    throw BackendError("the request has no input '" + spec_.text.name + "', which this model requires");
  }
  const InputTensor& text = *text_input;
  const Rows rows = SplitRows(text, batching);
  if (rows.per_row != 1) {
    throw BackendError("input '" + text.name + "' must hold one string per " +
                       (batching ? std::string("batch row") : std::string("request")) + ", got shape " +
                       glue::ShapeToString(text.shape));
  }
  // Each element is a 4-byte length and its bytes: a buffer this large holds a row over the limit.
  const uint64_t element_count = static_cast<uint64_t>(std::max<int64_t>(text.ElementCount(), 1));
  if (text.data.size() > (limits_.max_bytes + 4) * element_count) {
    throw BackendError("input '" + text.name + "' holds " + std::to_string(text.data.size()) +
                       " bytes, over this step's limit of " + std::to_string(limits_.max_bytes) +
                       " per prompt (parameter max_input_bytes): shorten the prompt or raise the limit");
  }
  const std::vector<std::string> prompts = text.Strings();

  std::vector<std::vector<uint32_t>> encoded;
  encoded.reserve(prompts.size());
  size_t longest = 0;
  for (size_t r = 0; r < prompts.size(); ++r) {
    const std::string prompt = before_encode ? before_encode(prompts[r], static_cast<int64_t>(r)) : prompts[r];
    if (prompt.size() > limits_.max_bytes) {
      throw BackendError("the prompt is " + std::to_string(prompt.size()) + " bytes, over this step's limit of " +
                         std::to_string(limits_.max_bytes) +
                         " (parameter max_input_bytes): shorten the prompt or raise the limit");
    }
    encoded.push_back(tokenizer_->Encode(prompt, add_special_tokens_));
    if (encoded.back().size() > limits_.max_tokens) {
      throw BackendError("the prompt is " + std::to_string(encoded.back().size()) +
                         " tokens, over this step's limit of " + std::to_string(limits_.max_tokens) +
                         " (parameter max_input_tokens): shorten the prompt or raise the limit");
    }
    longest = std::max(longest, encoded.back().size());
  }

  glue::RequestResult result;
  result.batch_size = static_cast<uint64_t>(rows.rows);
  const int64_t n = rows.rows;
  const int64_t width = static_cast<int64_t>(longest);

  if (requested.count(spec_.input_ids.name)) {
    std::vector<int64_t> ids(static_cast<size_t>(n * width), pad_value_);
    for (int64_t r = 0; r < n; ++r) {
      std::copy(encoded[r].begin(), encoded[r].end(), ids.begin() + r * width);
    }
    result.outputs.push_back(OutputTensor::Integers(spec_.input_ids.name, spec_.input_ids.dtype,
                                                    glue::WithBatch(batching, n, {width}), ids));
  }
  if (wanted(spec_.attention_mask)) {
    std::vector<int64_t> mask(static_cast<size_t>(n * width), 0);
    for (int64_t r = 0; r < n; ++r) {
      std::fill_n(mask.begin() + r * width, encoded[r].size(), 1);
    }
    result.outputs.push_back(OutputTensor::Integers(spec_.attention_mask->name, spec_.attention_mask->dtype,
                                                    glue::WithBatch(batching, n, {width}), mask));
  }
  if (wanted(spec_.input_length)) {
    std::vector<int64_t> lengths;
    for (const auto& e : encoded) lengths.push_back(static_cast<int64_t>(e.size()));
    result.outputs.push_back(OutputTensor::Integers(spec_.input_length->name, spec_.input_length->dtype,
                                                    glue::WithBatch(batching, n, {1}), lengths));
  }
  if (wanted(spec_.request_output_len_out)) {
    const auto len = inputs(spec_.request_output_len_in->name);
    if (!len) {
      throw BackendError("output '" + spec_.request_output_len_out->name + "' was requested but the request has no '" +
                         spec_.request_output_len_in->name + "' input to pass through");
    }
    result.outputs.push_back(
        OutputTensor::Integers(spec_.request_output_len_out->name, spec_.request_output_len_out->dtype,
                               len->shape, len->Integers()));
  }
  if (wanted(spec_.bad_words_ids)) {
    result.outputs.push_back(WordListOutput(inputs, spec_.bad_words, *spec_.bad_words_ids, n, batching));
  }
  if (wanted(spec_.stop_words_ids)) {
    result.outputs.push_back(WordListOutput(inputs, spec_.stop_words, *spec_.stop_words_ids, n, batching));
  }
  // As TensorRT-LLM's preprocessing: the client's END_ID / PAD_ID when sent, else the tokenizer's.
  const int64_t end_value = tokenizer_->EosId() ? *tokenizer_->EosId() : pad_value_;
  if (wanted(spec_.end_id)) {
    result.outputs.push_back(IdOutput(inputs, spec_.end_id_in, *spec_.end_id, end_value, n, batching));
  }
  if (wanted(spec_.pad_id)) {
    result.outputs.push_back(IdOutput(inputs, spec_.pad_id_in, *spec_.pad_id, pad_value_, n, batching));
  }
  if (wanted(spec_.embedding_bias)) {
    result.outputs.push_back(EmbeddingBiasOutput(inputs, n, batching));
  }
  return result;
}

// One id per row: the request's `input` passed through when it carries it, else `fallback`.
OutputTensor TokenizeRunner::IdOutput(const InputLookup& inputs, const std::optional<TensorSpec>& input,
                                    const TensorSpec& output, int64_t fallback, int64_t rows, bool batching) const {
  std::vector<int64_t> values(static_cast<size_t>(rows), fallback);
  if (input) {
    if (auto tensor = inputs(input->name)) {
      std::vector<int64_t> sent = tensor->Integers();
      if (static_cast<int64_t>(sent.size()) != rows) {
        throw BackendError("input '" + tensor->name + "' must hold one id per " +
                           (batching ? std::string("batch row") : std::string("request")) + " (" +
                           std::to_string(rows) + "), got shape " + glue::ShapeToString(tensor->shape));
      }
      values = std::move(sent);
    }
  }
  return OutputTensor::Integers(output.name, output.dtype, glue::WithBatch(batching, rows, {1}), values);
}

// TensorRT-LLM's embedding bias: per row a vector of the vocabulary's size holding, at every id
// of every word, the sum of the weights of the words that encode to it. Words are encoded as its
// preprocessing encodes them (`tokenizer.encode(word)`, special tokens included); no words gives
// an empty [rows, 0] bias, which TensorRT-LLM reads as "no bias".
OutputTensor TokenizeRunner::EmbeddingBiasOutput(const InputLookup& inputs, int64_t rows, bool batching) const {
  const TensorSpec& output = *spec_.embedding_bias;
  auto read = [&](const std::optional<TensorSpec>& spec) -> std::optional<glue::InputTensor> {
    return spec ? inputs(spec->name) : std::nullopt;
  };
  const auto words = read(spec_.embedding_bias_words);
  const auto weights = read(spec_.embedding_bias_weights);
  if (!words && !weights) {
    return OutputTensor::Floats(output.name, output.dtype, glue::WithBatch(batching, rows, {0}), {});
  }
  if (!words || !weights) {
    const std::string sent = words ? words->name : weights->name;
    const std::string missing = words ? (spec_.embedding_bias_weights ? spec_.embedding_bias_weights->name
                                                                      : std::string("embedding-bias weights"))
                                      : (spec_.embedding_bias_words ? spec_.embedding_bias_words->name
                                                                    : std::string("embedding-bias words"));
    throw BackendError("input '" + sent + "' was sent without '" + missing +
                       "'; send both (one weight per word) or neither");
  }
  const Rows word_rows = SplitRows(*words, batching);
  const Rows weight_rows = SplitRows(*weights, batching);
  if (word_rows.rows != rows || weight_rows.rows != rows) {
    throw BackendError("inputs '" + words->name + "' and '" + weights->name + "' must have " +
                       std::to_string(rows) + " rows like '" + spec_.text.name + "', got shapes " +
                       glue::ShapeToString(words->shape) + " and " + glue::ShapeToString(weights->shape));
  }
  if (word_rows.per_row != weight_rows.per_row) {
    throw BackendError("input '" + words->name + "' has " + std::to_string(word_rows.per_row) +
                       " words per row but '" + weights->name + "' has " + std::to_string(weight_rows.per_row) +
                       " weights; give one weight per word");
  }
  const std::vector<std::string> all_words = words->Strings();
  const std::vector<double> all_weights = weights->Floats();
  const size_t vocab = tokenizer_->VocabSize();
  std::vector<double> bias(static_cast<size_t>(rows) * vocab, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    double* row = bias.data() + static_cast<size_t>(r) * vocab;
    for (int64_t w = 0; w < word_rows.per_row; ++w) {
      const size_t i = static_cast<size_t>(r * word_rows.per_row + w);
      for (const uint32_t id : tokenizer_->Encode(all_words[i], true)) {
        if (id < vocab) row[id] += all_weights[i];
      }
    }
  }
  return OutputTensor::Floats(output.name, output.dtype,
                              glue::WithBatch(batching, rows, {static_cast<int64_t>(vocab)}), bias);
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
  for (const auto& row : words) {
    std::vector<int64_t> ids, offsets;
    for (const auto& word : row) {
      const std::vector<uint32_t> word_ids = tokenizer_->Encode(word, false);
      if (word_ids.empty()) continue;  // an empty word would end at the previous offset
      ids.insert(ids.end(), word_ids.begin(), word_ids.end());
      offsets.push_back(static_cast<int64_t>(ids.size()));
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
