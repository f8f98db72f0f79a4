// The text of one orchestrated answer: every sequence (batch row x beam) of the model's token
// responses, each through its own StreamText. Server-free, so it is unit-tested alone; the
// orchestrator feeds it each model response's token tensor (copied out of the response) and
// sends what it returns.
//
// It also runs the detokenize step's hooks (docs/HOOKS.md) as that step runs them: an answer the
// model sends in one response is a whole answer (Whole: afterDecode on each sequence's text); an
// answer streamed over several responses (Push) runs startStream once per sequence, onChunk on
// every delta and endStream when it ends — at the model's last response, at a stop-sequence match,
// or when the answer is abandoned (Abandon: a cancellation or an error). The hook state of each
// sequence is owned here, so it lives and dies with the request.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stream_text.h"
#include "triton_studio/glue/inputs.h"
#include "triton_studio/step_hooks.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

class AnswerText {
 public:
  // `token_dims`: the token tensor's dims without batch ([-1] = seq, [-1,-1] = beam, seq);
  // `batching`: whether the tensor carries a batch dimension first. `hooks` (the detokenize step's;
  // must outlive this) may be empty.
  AnswerText(const tok::Tokenizer& tokenizer, bool skip_special_tokens, std::vector<std::string> stop_sequences,
             size_t token_dims, bool batching, const StepHooks* hooks = nullptr);

  // One model response of a streamed answer: ids [batch?, beam?, seq] cut per sequence by `lengths`
  // when given. Returns one text delta per sequence. Throws BackendError on a malformed tensor (and
  // whatever a hook throws).
  std::vector<std::string> Push(const glue::InputTensor& tokens, const std::optional<glue::InputTensor>& lengths);
  // The whole answer in one model response (not streamed): each sequence's text, cut at a stop
  // sequence, through afterDecode. Only as the first and last call.
  std::vector<std::string> Whole(const glue::InputTensor& tokens, const std::optional<glue::InputTensor>& lengths);
  // The rest of every sequence at the end of a streamed answer (endStream's flush included).
  std::vector<std::string> Finish();
  // The answer ends without reaching the client (cancelled, failed): endStream still runs for every
  // streamed sequence that has not ended, its text is dropped, and a hook that throws here is ignored.
  void Abandon();
  // Every sequence hit a stop sequence: the model request can be cancelled.
  bool stopped() const;
  // Sequences seen so far: [rows, beams].
  int64_t rows() const { return rows_; }
  int64_t beams() const { return beams_; }

 private:
  // The per-sequence ids of one response; creates the sequences at the first one.
  std::vector<std::vector<uint32_t>> Sequences(const glue::InputTensor& tokens,
                                               const std::optional<glue::InputTensor>& lengths, bool streamed);

  const tok::Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  const StepHooks* hooks_;  // null without hooks
  std::vector<std::string> stops_;
  size_t token_dims_;
  bool batching_;
  int64_t rows_ = 0;
  int64_t beams_ = 0;
  std::vector<std::unique_ptr<StreamText>> texts_;
  // The streaming hooks' state of each sequence (startStream's value), while the answer lives.
  std::vector<std::shared_ptr<void>> hook_states_;
};

}  // namespace triton_studio::steps
