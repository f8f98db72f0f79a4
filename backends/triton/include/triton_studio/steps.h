// Generic tokenize / detokenize step runtimes. A generated step.cc only describes its step (a
// TokenizeSpec or DetokenizeSpec: tensor names, data types, dims, options) and registers it with
// one macro; reading tensors, batching, word-list encoding and responses all live here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "triton_studio/glue.h"
#include "triton_studio/step_hooks.h"

namespace triton_studio::steps {

// One tensor of the step's model config. Dims exclude the implicit batch dimension.
struct TensorSpec {
  std::string name;
  TRITONSERVER_DataType dtype = TRITONSERVER_TYPE_INVALID;
  std::vector<int64_t> dims;
  bool optional = false;
};

struct TokenizeSpec {
  std::string model_name;
  int64_t max_batch_size = 0;
  std::string tokenizer_file;  // relative to the model version folder
  bool add_special_tokens = true;
  // The chat template (a tokenizer_config.json or a Jinja file, relative to the version folder)
  // that renders `messages`; "" = the step has none. A rendered conversation is encoded without
  // adding special tokens: the template writes its own BOS, as transformers' apply_chat_template.
  std::string chat_template_file;
  // Every end token of the model (tokenizer_config.json's eos_token, generation_config.json's
  // eos_token_id): each is added to every row's stop words, so generation stops at any of them;
  // the first is the end id output when the client sends none.
  std::vector<int64_t> end_ids;
  // inputs
  TensorSpec text;                                   // BYTES prompt, one string per batch row
  std::optional<TensorSpec> request_output_len_in;  // passed through (with dtype conversion)
  std::optional<TensorSpec> bad_words;              // BYTES words per row
  std::optional<TensorSpec> stop_words;
  std::optional<TensorSpec> end_id_in;               // [1] per row: the client's end id, passed through
  std::optional<TensorSpec> pad_id_in;               // [1] per row: the client's pad id, passed through
  std::optional<TensorSpec> embedding_bias_words;    // BYTES words per row
  std::optional<TensorSpec> embedding_bias_weights;  // FP32/FP64, one weight per word
  std::optional<TensorSpec> messages;                // BYTES [1] per row: OpenAI-style conversation (JSON)
  std::optional<TensorSpec> tools;                   // BYTES [1] per row: tools offered (JSON array)
  std::optional<TensorSpec> chat_template_kwargs;    // BYTES [1] per row: extra template variables (JSON object)
  // outputs
  TensorSpec input_ids;                              // ids padded to the longest row
  std::optional<TensorSpec> input_length;            // [1] per row
  std::optional<TensorSpec> request_output_len_out;
  std::optional<TensorSpec> bad_words_ids;           // [2,-1] per row: flattened ids + offsets
  std::optional<TensorSpec> stop_words_ids;
  std::optional<TensorSpec> end_id;                  // [1] per row: end_id_in when sent, else the eos id
  std::optional<TensorSpec> pad_id;                  // [1] per row: pad_id_in when sent, else pad (or eos) id
  std::optional<TensorSpec> embedding_bias;          // [vocab] per row, or [0] when no words were sent
  std::optional<TensorSpec> attention_mask;          // encoders: 1 per real token, 0 per pad, like ids
};

struct DetokenizeSpec {
  std::string model_name;
  int64_t max_batch_size = 0;
  std::string tokenizer_file;
  bool skip_special_tokens = true;
  TensorSpec tokens;                          // [-1,-1] (beam, seq) or [-1] (seq)
  std::optional<TensorSpec> sequence_length;  // [-1] (one length per beam)
  TensorSpec text;                            // BYTES, one string per beam
};

// Model factories used by the registration macros below; `hooks` are the step's compiled hooks.
std::unique_ptr<glue::BackendModel> CreateTokenizeModel(TRITONBACKEND_Model* model, const TokenizeSpec& spec,
                                                        const StepHooks& hooks = {});
std::unique_ptr<glue::BackendModel> CreateDetokenizeModel(TRITONBACKEND_Model* model, const DetokenizeSpec& spec,
                                                          const StepHooks& hooks = {});

}  // namespace triton_studio::steps

// Registers a tokenize step: SPEC_FN is a function returning `const TokenizeSpec&`.
#define TS_TOKENIZE_STEP(SPEC_FN) TS_TOKENIZE_STEP_WITH_HOOKS(SPEC_FN, ::triton_studio::steps::StepHooks)

// Registers a tokenize step with hooks: HOOKS_FN() returns a `StepHooks` (a type name works too).
#define TS_TOKENIZE_STEP_WITH_HOOKS(SPEC_FN, HOOKS_FN)                                              \
  namespace {                                                                                       \
  std::unique_ptr<::triton_studio::glue::BackendModel> TsCreateStepModel(TRITONBACKEND_Model* model) { \
    return ::triton_studio::steps::CreateTokenizeModel(model, SPEC_FN(), HOOKS_FN());               \
  }                                                                                                 \
  }                                                                                                 \
  TS_TRITON_BACKEND(TsCreateStepModel)

// Registers a detokenize step: SPEC_FN is a function returning `const DetokenizeSpec&`.
#define TS_DETOKENIZE_STEP(SPEC_FN) TS_DETOKENIZE_STEP_WITH_HOOKS(SPEC_FN, ::triton_studio::steps::StepHooks)

#define TS_DETOKENIZE_STEP_WITH_HOOKS(SPEC_FN, HOOKS_FN)                                            \
  namespace {                                                                                       \
  std::unique_ptr<::triton_studio::glue::BackendModel> TsCreateStepModel(TRITONBACKEND_Model* model) { \
    return ::triton_studio::steps::CreateDetokenizeModel(model, SPEC_FN(), HOOKS_FN());             \
  }                                                                                                 \
  }                                                                                                 \
  TS_TRITON_BACKEND(TsCreateStepModel)
