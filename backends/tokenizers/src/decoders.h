// Decoders: turn the token strings of a decode back into text, mirroring HF's decoders. Every
// stage works incrementally (tokens arrive one at a time, text leaves as soon as no later token
// can change it), and a full decode is the same machinery fed all tokens at once, so streaming
// and full decoding agree by construction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "json_fields.h"

namespace triton_studio::tok {

// Per-stream state of one stage.
struct StageState {
  std::string pending;  // bytes or text held back until later tokens decide them
  uint64_t seen = 0;    // tokens (or leading characters) seen so far
  bool done = false;    // stage-specific flag (e.g. leading strip finished)
};

class DecoderStage {
 public:
  virtual ~DecoderStage() = default;
  // `in` holds tokens, or (after a fusing stage) consecutive chunks of one string. Appends the
  // pieces that became final to `out`.
  virtual void Push(StageState& st, std::vector<std::string>& in, std::vector<std::string>& out) const = 0;
  virtual void Finish(StageState& st, std::vector<std::string>& out) const {
    (void)st;
    (void)out;
  }
};

class DecoderChain {
 public:
  // `node` may be null: HF then joins tokens with spaces.
  static DecoderChain Make(const Json* node, const std::string& path);

  size_t size() const { return stages_.size(); }
  std::vector<StageState> NewState() const { return std::vector<StageState>(stages_.size()); }
  // Feeds tokens; appends the text that became final.
  void Push(std::vector<StageState>& st, std::vector<std::string>& tokens, std::string& text) const;
  void Finish(std::vector<StageState>& st, std::string& text) const;

 private:
  std::vector<std::unique_ptr<DecoderStage>> stages_;
};

}  // namespace triton_studio::tok
