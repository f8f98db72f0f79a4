// Incremental decoders that outlive one execution of the detokenize step. Behind a decoupled
// model, Triton's ensemble sends every streamed response to the step as a request of its own,
// carrying only that response's tokens; decoding each alone would split UTF-8 characters and lose
// SentencePiece word-start spaces. The ensemble passes the client's request id on to every step
// request, so the step keys one IncrementalDecoder per (request id, sequence) and feeds it chunk
// after chunk: the concatenated chunks equal the full decode of the whole answer.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

class StreamDecoders {
 public:
  // A stream not pushed to for `idle_ns` is forgotten (its held-back bytes, if any, are dropped):
  // Triton does not tell a step when a stream ends.
  StreamDecoders(const tok::Tokenizer& tokenizer, bool skip_special_tokens, uint64_t idle_ns);

  // The text that became final with `ids`, in the stream `key`. Safe to call from several
  // instances at once; chunks of one stream must arrive in order (one instance guarantees it).
  std::string Push(const std::string& key, const std::vector<uint32_t>& ids);

 private:
  struct Stream {
    tok::IncrementalDecoder decoder;
    uint64_t last_used_ns;
  };
  void ForgetIdle(uint64_t now_ns);

  const tok::Tokenizer& tokenizer_;
  const bool skip_special_tokens_;
  const uint64_t idle_ns_;
  std::mutex mutex_;
  std::unordered_map<std::string, Stream> streams_;
  uint64_t next_sweep_ns_ = 0;
};

}  // namespace triton_studio::steps
