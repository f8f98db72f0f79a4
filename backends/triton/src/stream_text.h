// The text of one generated sequence as the orchestrator streams it: token ids in, text deltas
// out. Owns the sequence's incremental decoder (no split UTF-8 characters, SentencePiece
// word-start spaces kept), its stop sequences (a match ends the text before the stop sequence,
// even when the stop sequence arrives split across tokens: text that may begin one is held back
// until it is known not to) and the per-chunk hook. State lives and dies with the request that
// created it, so nothing is shared between requests and no request id is needed.
//
// Streamed deltas concatenated always equal the text of the whole sequence decoded at once with
// the same stop sequences: the same object produces both.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

// The on-chunk hook: rewrites each text delta before it is sent; gets the sequence's own state
// object (created by the hook's owner per sequence, or null).
using ChunkHook = std::function<std::string(void* state, const std::string& text)>;
// The end-of-stream hook: what the chunk hook held back, as the sequence's last delta.
using EndHook = std::function<std::string(void* state)>;

class StreamText {
 public:
  StreamText(const tok::Tokenizer& tokenizer, bool skip_special_tokens, std::vector<std::string> stop_sequences,
             ChunkHook on_chunk = nullptr, void* hook_state = nullptr, EndHook on_end = nullptr);

  // Text that became final with `ids` (possibly empty). The push that matches a stop sequence
  // returns the text before it (and the end hook's flush); after it, "" — and stopped() is true:
  // the caller should cancel the model request.
  std::string Push(const std::vector<uint32_t>& ids);
  // The rest at the end of the sequence: held-back text that did not start a stop sequence, a
  // trailing partial character as U+FFFD (as a whole decode shows it), and the end hook's flush.
  std::string Finish();
  bool stopped() const { return stopped_; }
  // The end hook's flush, once: Finish and a stop call it; the owner calls it when the sequence
  // ends any other way (a cancellation), so every stream that started also ends.
  std::string End();

 private:
  std::string Emit(std::string text);
  // Moves the decided part of pending_ to the output (all of it when `final`).
  std::string Release(bool final);

  tok::IncrementalDecoder decoder_;
  std::vector<std::string> stops_;
  size_t longest_stop_ = 0;
  ChunkHook on_chunk_;
  void* hook_state_;
  EndHook on_end_;
  bool ended_ = false;
  std::string pending_;  // decoded text not yet sent: it may be the start of a stop sequence
  bool stopped_ = false;
};

}  // namespace triton_studio::steps
