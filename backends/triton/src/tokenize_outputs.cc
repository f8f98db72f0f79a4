// The tokenize step's outputs beside the ids that TensorRT-LLM's preprocessing also gives: the
// output length passed through, the word lists, END_ID / PAD_ID and the embedding bias.
#include "step_common.h"
#include "tokenize_runner.h"

namespace triton_studio::steps {

using glue::BackendError;
using glue::OutputTensor;

void TokenizeRunner::AppendControlOutputs(const InputLookup& inputs, const std::set<std::string>& requested,
                                          int64_t n, glue::RequestResult* out) const {
  const bool batching = batching_;
  auto wanted = [&](const std::optional<TensorSpec>& spec) { return spec && requested.count(spec->name) > 0; };
  glue::RequestResult& result = *out;
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
  // As TensorRT-LLM's preprocessing: the client's END_ID / PAD_ID when sent, else the model's first
  // end token (tokenizer_config.json's eos_token), else the tokenizer's guess.
  const int64_t end_value = !spec_.end_ids.empty() ? spec_.end_ids.front()
                            : tokenizer_->EosId()  ? *tokenizer_->EosId()
                                                   : pad_value_;
  if (wanted(spec_.end_id)) {
    result.outputs.push_back(IdOutput(inputs, spec_.end_id_in, *spec_.end_id, end_value, n, batching));
  }
  if (wanted(spec_.pad_id)) {
    result.outputs.push_back(IdOutput(inputs, spec_.pad_id_in, *spec_.pad_id, pad_value_, n, batching));
  }
  if (wanted(spec_.embedding_bias)) {
    result.outputs.push_back(EmbeddingBiasOutput(inputs, n, batching));
  }
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

}  // namespace triton_studio::steps
