// Incremental decoders that outlive one execution of the detokenize step. Behind a decoupled
// model, Triton's ensemble sends every streamed response to the step as a request of its own,
// carrying only that response's tokens; decoding each alone would split UTF-8 characters and lose
// SentencePiece word-start spaces. The ensemble passes the client's request id on to every step
// request, so the step keys one IncrementalDecoder per (request id, sequence) and feeds it chunk
// after chunk: the concatenated chunks equal the full decode of the whole answer.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "triton_studio/step_hooks.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

class StreamDecoders {
 public:
  // A stream not pushed to for `idle_ns` is forgotten (its held-back bytes, if any, are dropped):
  // Triton does not tell a step when a stream ends. `hooks` (may be null; must outlive this) run
  // their streaming hooks per stream: startStream at its first chunk, onChunk on each delta,
  // endStream at its end.
  StreamDecoders(const tok::Tokenizer& tokenizer, bool skip_special_tokens, uint64_t idle_ns,
                 const StepHooks* hooks = nullptr);

  // The text that became final with `ids`, in the stream `key`. When `ids` holds the tokenizer's
  // end-of-sequence id the stream ends: the decoder's held bytes and the end hook's flush come
  // out, and the stream is forgotten. (Nothing else tells the step: Triton refuses an ensemble
  // step fed by a decoupled step and by anything else, a token budget included.) Safe to call
  // from several instances at once; chunks of one stream must arrive in order (one instance
  // guarantees it).
  std::string Push(const std::string& key, const std::vector<uint32_t>& ids);

 private:
  struct Stream {
    tok::IncrementalDecoder decoder;
    uint64_t last_used_ns;
    std::shared_ptr<void> hook_state;
  };
  void ForgetIdle(uint64_t now_ns);

  const tok::Tokenizer& tokenizer_;
  const bool skip_special_tokens_;
  const uint64_t idle_ns_;
  const StepHooks* hooks_;
  std::optional<uint32_t> eos_;
  std::mutex mutex_;
  std::unordered_map<std::string, Stream> streams_;
  uint64_t next_sweep_ns_ = 0;
};

}  // namespace triton_studio::steps
