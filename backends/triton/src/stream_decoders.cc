#include "stream_decoders.h"

#include <algorithm>

#include "triton_studio/glue.h"

namespace triton_studio::steps {

StreamDecoders::StreamDecoders(const tok::Tokenizer& tokenizer, bool skip_special_tokens, uint64_t idle_ns)
    : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens), idle_ns_(idle_ns) {}

std::string StreamDecoders::Push(const std::string& key, const std::vector<uint32_t>& ids) {
  const uint64_t now = glue::NowNs();
  std::lock_guard<std::mutex> lock(mutex_);
  ForgetIdle(now);
  auto it = streams_.find(key);
  if (it == streams_.end()) {
    it = streams_.emplace(key, Stream{tok::IncrementalDecoder(tokenizer_, skip_special_tokens_), now}).first;
  }
  std::string text;
  for (uint32_t id : ids) text += it->second.decoder.Push(id);
  it->second.last_used_ns = now;
  return text;
}

void StreamDecoders::ForgetIdle(uint64_t now_ns) {
  // A sweep costs a pass over all streams, so run it at most a few times per idle period.
  if (now_ns < next_sweep_ns_) return;
  next_sweep_ns_ = now_ns + std::max<uint64_t>(idle_ns_ / 4, 1);
  for (auto it = streams_.begin(); it != streams_.end();) {
    if (now_ns - it->second.last_used_ns > idle_ns_) {
      it = streams_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace triton_studio::steps
