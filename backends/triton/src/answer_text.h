// The text of one orchestrated answer: every sequence (batch row x beam) of the model's token
// responses, each through its own StreamText. Server-free, so it is unit-tested alone; the
// orchestrator feeds it each model response's token tensor (copied out of the response) and
// sends what it returns.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stream_text.h"
#include "triton_studio/glue/inputs.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

class AnswerText {
 public:
  // `token_dims`: the token tensor's dims without batch ([-1] = seq, [-1,-1] = beam, seq);
  // `batching`: whether the tensor carries a batch dimension first.
  AnswerText(const tok::Tokenizer& tokenizer, bool skip_special_tokens, std::vector<std::string> stop_sequences,
             size_t token_dims, bool batching);

  // One model response: ids [batch?, beam?, seq] cut per sequence by `lengths` when given. Returns
  // one text delta per sequence. Throws BackendError on a malformed tensor.
  std::vector<std::string> Push(const glue::InputTensor& tokens, const std::optional<glue::InputTensor>& lengths);
  // The rest of every sequence at the end of the answer.
  std::vector<std::string> Finish();
  // Every sequence hit a stop sequence: the model request can be cancelled.
  bool stopped() const;
  // Sequences seen so far: [rows, beams].
  int64_t rows() const { return rows_; }
  int64_t beams() const { return beams_; }

 private:
  const tok::Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::vector<std::string> stops_;
  size_t token_dims_;
  bool batching_;
  int64_t rows_ = 0;
  int64_t beams_ = 0;
  std::vector<std::unique_ptr<StreamText>> texts_;
};

}  // namespace triton_studio::steps
