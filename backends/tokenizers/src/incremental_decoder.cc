// IncrementalDecoder: feeds ids one at a time through the same decoder chain a full decode uses.
#include "hf_tokenizer.h"

namespace triton_studio::tok {

struct IncrementalDecoder::State {
  const HfTokenizer* tokenizer;
  bool skip_special_tokens;
  std::vector<StageState> stages;
  std::vector<std::string> tokens;
};

IncrementalDecoder::IncrementalDecoder(const Tokenizer& tokenizer, bool skip_special_tokens) {
  const auto* hf = dynamic_cast<const HfTokenizer*>(&tokenizer);
  if (hf == nullptr) throw TokenizerError("IncrementalDecoder needs a tokenizer made by Tokenizer::FromFile/FromJson");
  state_ = std::make_unique<State>(State{hf, skip_special_tokens, hf->decoder().NewState(), {}});
}

IncrementalDecoder::~IncrementalDecoder() = default;
IncrementalDecoder::IncrementalDecoder(IncrementalDecoder&&) noexcept = default;
IncrementalDecoder& IncrementalDecoder::operator=(IncrementalDecoder&&) noexcept = default;

std::string IncrementalDecoder::Push(uint32_t id) {
  std::string text;
  const std::string* token = state_->tokenizer->TokenForDecode(id, state_->skip_special_tokens);
  if (token == nullptr) return text;
  state_->tokens.assign(1, *token);
  state_->tokenizer->decoder().Push(state_->stages, state_->tokens, text);
  return text;
}

std::string IncrementalDecoder::Finish() {
  std::string text;
  state_->tokenizer->decoder().Finish(state_->stages, text);
  return text;
}

}  // namespace triton_studio::tok
