// Incremental decoders kept between executions of the detokenize step (see stream_decoders.h).
#include "stream_decoders.h"

#include <algorithm>

#include "triton_studio/glue.h"

namespace triton_studio::steps {

StreamDecoders::StreamDecoders(const tok::Tokenizer& tokenizer, bool skip_special_tokens, uint64_t idle_ns,
                               const StepHooks* hooks)
    : tokenizer_(tokenizer),
      skip_special_tokens_(skip_special_tokens),
      idle_ns_(idle_ns),
      hooks_(hooks && hooks->streams() ? hooks : nullptr),
      eos_(tokenizer.EosId()) {}

std::string StreamDecoders::Push(const std::string& key, const std::vector<uint32_t>& ids) {
  const uint64_t now = glue::NowNs();
  std::lock_guard<std::mutex> lock(mutex_);
  ForgetIdle(now);
  auto it = streams_.find(key);
  if (it == streams_.end()) {
    it = streams_.emplace(key, Stream{tok::IncrementalDecoder(tokenizer_, skip_special_tokens_), now}).first;
    if (hooks_) it->second.hook_state = hooks_->start_stream();
  }
  Stream& stream = it->second;
  std::string text;
  bool end = false;
  for (uint32_t id : ids) {
    text += stream.decoder.Push(id);
    end = end || (eos_ && id == *eos_);
  }
  stream.last_used_ns = now;
  if (end) text += stream.decoder.Finish();
  if (hooks_) {
    if (!text.empty()) text = hooks_->on_chunk(stream.hook_state.get(), text);
    if (end) text += hooks_->end_stream(stream.hook_state.get());
  }
  if (end) streams_.erase(it);
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
