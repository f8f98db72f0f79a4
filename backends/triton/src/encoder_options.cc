// A tokenize step's truncation/padding from its config parameters over tokenizer.json's (encoder_options.h).
#include "encoder_options.h"

#include <cmath>
#include <string>

namespace triton_studio::steps {
namespace {

using glue::BackendError;

// sentence-transformers' cut when the tokenizer sets none and the model's length is unknown.
constexpr size_t kDefaultEncoderMaxLength = 512;

class Reader {
 public:
  explicit Reader(const glue::ModelConfig& config) : config_(config) {}

  bool Has(const char* key) const { return config_.Parameter(key).has_value(); }

  size_t Count(const char* key, size_t fallback, size_t min) const {
    const auto text = config_.Parameter(key);
    if (!text) return fallback;
    const double value = glue::NumberParameterValue(config_.name, key, *text);
    if (value < static_cast<double>(min) || value != std::floor(value) || value > 1e9) {
      throw BackendError("model '" + config_.name + "': parameter '" + key + "' must be a whole number >= " +
                         std::to_string(min) + ", got '" + *text + "'");
    }
    return static_cast<size_t>(value);
  }

  // The index of the parameter's value among `choices`, or `fallback` when it is not set.
  size_t Choice(const char* key, std::initializer_list<const char*> choices, size_t fallback) const {
    const auto text = config_.Parameter(key);
    if (!text) return fallback;
    size_t i = 0;
    std::string names;
    for (const char* choice : choices) {
      if (*text == choice) return i;
      names += (i++ ? ", " : "") + std::string(choice);
    }
    throw BackendError("model '" + config_.name + "': parameter '" + key + "' is '" + *text + "'; use one of " +
                       names);
  }

 private:
  const glue::ModelConfig& config_;
};

bool AnySet(const Reader& read, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (read.Has(key)) return true;
  }
  return false;
}

std::optional<tok::TruncationParams> Truncation(const Reader& read, std::optional<tok::TruncationParams> own,
                                                bool encoder) {
  const bool overridden = AnySet(read, {"max_length", "truncation_strategy", "stride", "truncation_direction"});
  if (!own && !overridden && !encoder) return std::nullopt;
  tok::TruncationParams t = own.value_or(tok::TruncationParams{});
  if (!own) t.max_length = read.Count("default_max_length", kDefaultEncoderMaxLength, 1);
  t.max_length = read.Count("max_length", t.max_length, 1);
  t.stride = read.Count("stride", t.stride, 0);
  t.strategy = static_cast<tok::TruncationStrategy>(
      read.Choice("truncation_strategy", {"longest_first", "only_first", "only_second"}, static_cast<size_t>(t.strategy)));
  t.left = read.Choice("truncation_direction", {"right", "left"}, t.left ? 1 : 0) == 1;
  return t;
}

std::optional<tok::PaddingParams> Padding(const Reader& read, std::optional<tok::PaddingParams> own,
                                          const tok::Tokenizer& tokenizer) {
  if (!AnySet(read, {"padding_strategy", "padding_length", "pad_to_multiple_of", "padding_direction"})) return own;
  tok::PaddingParams p;
  if (own) {
    p = *own;
  } else {
    const auto pad = tokenizer.PadId();
    const auto eos = tokenizer.EosId();
    p.pad_id = pad ? *pad : eos ? *eos : 0;  // what the step pads with when tokenizer.json sets no padding
  }
  const bool fixed = read.Choice("padding_strategy", {"batch_longest", "fixed"}, p.fixed_length ? 1 : 0) == 1;
  if (fixed) {
    if (!p.fixed_length && !read.Has("padding_length")) {
      throw BackendError("parameter 'padding_strategy' is 'fixed' but no 'padding_length' says how long; set it");
    }
    p.fixed_length = read.Count("padding_length", p.fixed_length.value_or(1), 1);
  } else {
    p.fixed_length.reset();
  }
  p.multiple_of = read.Count("pad_to_multiple_of", p.multiple_of, 0);
  p.left = read.Choice("padding_direction", {"right", "left"}, p.left ? 1 : 0) == 1;
  return p;
}

}  // namespace

tok::EncoderOptions EncoderOptionsFromConfig(const glue::ModelConfig& config, const tok::Tokenizer& tokenizer,
                                             bool encoder) {
  const Reader read(config);
  const tok::EncoderOptions own = tokenizer.EncoderDefaults();
  return {Truncation(read, own.truncation, encoder), Padding(read, own.padding, tokenizer)};
}

}  // namespace triton_studio::steps
