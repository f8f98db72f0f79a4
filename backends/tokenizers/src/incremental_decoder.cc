// IncrementalDecoder: feeds ids one at a time through the same decoder chain a full decode uses.
#include "hf_tokenizer.h"

namespace triton_studio::tok {

struct IncrementalDecoder::State {
  const HfTokenizer* tokenizer;
  bool skip_special_tokens;
  DecoderChain::State decoder;
};

IncrementalDecoder::IncrementalDecoder(const Tokenizer& tokenizer, bool skip_special_tokens) {
  const auto* hf = dynamic_cast<const HfTokenizer*>(&tokenizer);
  if (hf == nullptr) throw TokenizerError("IncrementalDecoder needs a tokenizer made by Tokenizer::FromFile/FromJson");
  state_ = std::make_unique<State>(State{hf, skip_special_tokens, hf->decoder().NewState()});
}

IncrementalDecoder::~IncrementalDecoder() = default;
IncrementalDecoder::IncrementalDecoder(IncrementalDecoder&&) noexcept = default;
IncrementalDecoder& IncrementalDecoder::operator=(IncrementalDecoder&&) noexcept = default;

std::string IncrementalDecoder::Push(uint32_t id) {
  std::string text;
  if (!state_->tokenizer->Decodes(id, state_->skip_special_tokens)) return text;
  state_->tokenizer->decoder().Push(state_->decoder, &id, 1, text);
  return text;
}

std::string IncrementalDecoder::Finish() {
  std::string text;
  state_->tokenizer->decoder().Finish(state_->decoder, text);
  return text;
}

}  // namespace triton_studio::tok
