// The text of one generated sequence, streamed with its stop sequences (see stream_text.h).
#include "stream_text.h"

#include <algorithm>

namespace triton_studio::steps {

StreamText::StreamText(const tok::Tokenizer& tokenizer, bool skip_special_tokens,
                       std::vector<std::string> stop_sequences, ChunkHook on_chunk, void* hook_state,
                       EndHook on_end)
    : decoder_(tokenizer, skip_special_tokens),
      on_chunk_(std::move(on_chunk)),
      hook_state_(hook_state),
      on_end_(std::move(on_end)) {
  for (auto& s : stop_sequences) {
    if (s.empty()) continue;  // an empty stop sequence would end every answer before it starts
    longest_stop_ = std::max(longest_stop_, s.size());
    stops_.push_back(std::move(s));
  }
}

std::string StreamText::Push(const std::vector<uint32_t>& ids) {
  if (stopped_) return "";
  for (uint32_t id : ids) pending_ += decoder_.Push(id);
  return Release(false);
}

std::string StreamText::Finish() {
  if (stopped_) return End();
  pending_ += decoder_.Finish();
  std::string text = Release(true);
  return text + End();
}

std::string StreamText::End() {
  if (ended_ || !on_end_) return "";
  ended_ = true;
  return on_end_(hook_state_);
}

std::string StreamText::Release(bool final) {
  // The earliest match wins: it ends the text, whatever follows.
  size_t match = std::string::npos;
  for (const auto& stop : stops_) match = std::min(match, pending_.find(stop));
  if (match != std::string::npos) {
    stopped_ = true;
    std::string text = pending_.substr(0, match);
    pending_.clear();
    // The answer ends here: what the chunk hook held back belongs to it.
    text = Emit(std::move(text));
    return text + End();
  }
  size_t keep = 0;
  if (!final) {
    // Hold back the longest tail of pending_ that is a proper prefix of some stop sequence.
    const size_t max_keep = std::min(pending_.size(), longest_stop_ > 0 ? longest_stop_ - 1 : 0);
    for (size_t n = max_keep; n > 0 && keep == 0; --n) {
      const char* tail = pending_.data() + pending_.size() - n;
      for (const auto& stop : stops_) {
        if (stop.size() > n && stop.compare(0, n, tail, n) == 0) {
          keep = n;
          break;
        }
      }
    }
  }
  std::string text = pending_.substr(0, pending_.size() - keep);
  pending_.erase(0, pending_.size() - keep);
  return Emit(std::move(text));
}

std::string StreamText::Emit(std::string text) {
  if (!on_chunk_ || text.empty()) return text;
  return on_chunk_(hook_state_, text);
}

}  // namespace triton_studio::steps
