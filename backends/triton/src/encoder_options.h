// A tokenize step's truncation and padding: tokenizer.json's own, overridden by the step's config
// parameters (the pipeline step's "parameters"; names, values and docs in
// generator/model/encoderParameters.ts, the one table of them). An encoder step whose tokenizer.json
// has no truncation is cut at `default_max_length` (the model's max_position_embeddings, which the
// generator passes; 512 if unknown) with LongestFirst, as sentence-transformers does.
#pragma once

#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/model_config.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::steps {

// Throws BackendError naming the parameter for an unknown strategy or direction, or a value out of
// range (at model load). `encoder`: the step feeds an encoder (mask, type ids or a second text).
tok::EncoderOptions EncoderOptionsFromConfig(const glue::ModelConfig& config, const tok::Tokenizer& tokenizer,
                                             bool encoder);

}  // namespace triton_studio::steps
