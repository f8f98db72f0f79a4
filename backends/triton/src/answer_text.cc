// The text of one orchestrated answer, every sequence through its own StreamText (see
// answer_text.h).
#include "answer_text.h"

#include <limits>

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/errors.h"

namespace triton_studio::steps {

using glue::BackendError;

AnswerText::AnswerText(const tok::Tokenizer& tokenizer, bool skip_special_tokens,
                       std::vector<std::string> stop_sequences, size_t token_dims, bool batching,
                       const StepHooks* hooks)
    : tokenizer_(tokenizer),
      skip_special_tokens_(skip_special_tokens),
      hooks_(hooks),
      stops_(std::move(stop_sequences)),
      token_dims_(token_dims),
      batching_(batching) {
  if (token_dims_ != 1 && token_dims_ != 2) throw BackendError("token dims must be [seq] or [beam, seq]");
}

std::vector<std::vector<uint32_t>> AnswerText::Sequences(const glue::InputTensor& tokens,
                                                          const std::optional<glue::InputTensor>& lengths,
                                                          bool streamed) {
  const size_t rank = token_dims_ + (batching_ ? 1 : 0);
  if (tokens.shape.size() != rank) {
    throw BackendError("the model's output '" + tokens.name + "' has shape " + glue::ShapeToString(tokens.shape) +
                       " but " + std::to_string(rank) + " dimensions were expected");
  }
  const int64_t rows = batching_ ? tokens.shape[0] : 1;
  const int64_t beams = token_dims_ == 2 ? tokens.shape[rank - 2] : 1;
  const int64_t seq = tokens.shape[rank - 1];
  if (texts_.empty()) {
    rows_ = rows;
    beams_ = beams;
    // A streamed answer runs the streaming hooks; a whole one only afterDecode (in Whole).
    const bool hooked = streamed && hooks_ != nullptr && hooks_->streams();
    for (int64_t s = 0; s < rows * beams; ++s) {
      if (hooked) {
        hook_states_.push_back(hooks_->start_stream());
        texts_.push_back(std::make_unique<StreamText>(tokenizer_, skip_special_tokens_, stops_, hooks_->on_chunk,
                                                      hook_states_.back().get(), hooks_->end_stream));
      } else {
        texts_.push_back(std::make_unique<StreamText>(tokenizer_, skip_special_tokens_, stops_));
      }
    }
  } else if (rows != rows_ || beams != beams_) {
    throw BackendError("the model's output '" + tokens.name + "' changed from " + std::to_string(rows_) + "x" +
                       std::to_string(beams_) + " to " + std::to_string(rows) + "x" + std::to_string(beams) +
                       " sequences within one answer");
  }
  const std::vector<int64_t> ids = tokens.Integers();
  std::vector<int64_t> cut(static_cast<size_t>(rows * beams), seq);
  if (lengths) {
    cut = lengths->Integers();
    if (static_cast<int64_t>(cut.size()) != rows * beams) {
      throw BackendError("the model's output '" + lengths->name + "' has " + std::to_string(cut.size()) +
                         " lengths for " + std::to_string(rows * beams) + " sequences");
    }
  }
  std::vector<std::vector<uint32_t>> sequences(static_cast<size_t>(rows * beams));
  for (int64_t s = 0; s < rows * beams; ++s) {
    const int64_t n = cut[static_cast<size_t>(s)];
    if (n < 0 || n > seq) {
      throw BackendError("sequence length " + std::to_string(n) + " is outside the " + std::to_string(seq) +
                         " tokens of '" + tokens.name + "'");
    }
    std::vector<uint32_t>& sequence = sequences[static_cast<size_t>(s)];
    sequence.reserve(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) {
      const int64_t id = ids[static_cast<size_t>(s * seq + t)];
      if (id < 0 || id > std::numeric_limits<uint32_t>::max()) {
        throw BackendError("token id " + std::to_string(id) + " in '" + tokens.name + "' is not a valid id");
      }
      sequence.push_back(static_cast<uint32_t>(id));
    }
  }
  return sequences;
}

std::vector<std::string> AnswerText::Push(const glue::InputTensor& tokens,
                                          const std::optional<glue::InputTensor>& lengths) {
  const std::vector<std::vector<uint32_t>> sequences = Sequences(tokens, lengths, true);
  std::vector<std::string> deltas;
  deltas.reserve(texts_.size());
  for (size_t s = 0; s < sequences.size(); ++s) deltas.push_back(texts_[s]->Push(sequences[s]));
  return deltas;
}

std::vector<std::string> AnswerText::Whole(const glue::InputTensor& tokens,
                                           const std::optional<glue::InputTensor>& lengths) {
  if (!texts_.empty()) throw BackendError("a whole answer must be the answer's only response");
  const std::vector<std::vector<uint32_t>> sequences = Sequences(tokens, lengths, false);
  std::vector<std::string> texts;
  texts.reserve(texts_.size());
  for (size_t s = 0; s < sequences.size(); ++s) {
    std::string text = texts_[s]->Push(sequences[s]);
    text += texts_[s]->Finish();
    texts.push_back(hooks_ != nullptr && hooks_->after_decode ? hooks_->after_decode(text) : std::move(text));
  }
  return texts;
}

void AnswerText::Abandon() {
  for (auto& t : texts_) {
    try {
      (void)t->End();
    } catch (...) {
      // The request has already failed or been cancelled: a second error has nowhere to go.
    }
  }
}

std::vector<std::string> AnswerText::Finish() {
  std::vector<std::string> rest;
  rest.reserve(texts_.size());
  for (auto& t : texts_) rest.push_back(t->Finish());
  return rest;
}

bool AnswerText::stopped() const {
  if (texts_.empty()) return false;
  for (const auto& t : texts_) {
    if (!t->stopped()) return false;
  }
  return true;
}

}  // namespace triton_studio::steps
