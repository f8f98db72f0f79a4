// The tensors every token-in, token-out model step needs (sim-llm, the llama.cpp step: the
// FasterTransformer / TensorRT-LLM interface): inputs `input_ids` and `request_output_len`, an
// integer `output_ids` and, when the config has one, an integer `sequence_length`. Checked once
// at model load, so a config that cannot work fails there with what to change.
#pragma once

#include <string>

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/model_config.h"

namespace triton_studio::glue {

struct TokenModelOutputs {
  TRITONSERVER_DataType output_ids;
  TRITONSERVER_DataType sequence_length;  // TRITONSERVER_TYPE_INVALID when the config has none
};

// `backend` names the step in messages, `interface` the tensor interface it follows, `example`
// an output_ids type that works (e.g. "TYPE_INT32").
inline TokenModelOutputs CheckTokenModelConfig(const ModelConfig& config, const std::string& backend,
                                               const std::string& interface, const std::string& example) {
  for (const char* input : {"input_ids", "request_output_len"}) {
    if (!config.HasTensor(input, false)) {
      throw BackendError(backend + " needs an input named '" + input + "' (" + interface +
                         " interface: input_ids, input_lengths, request_output_len)");
    }
  }
  TokenModelOutputs outputs{config.TensorDataType("output_ids", true), config.TensorDataType("sequence_length", true)};
  if (!IsIntegerType(outputs.output_ids)) {
    throw BackendError(backend + " needs an integer output named 'output_ids' (e.g. " + example + ", dims [-1,-1])");
  }
  if (config.HasTensor("sequence_length", true) && !IsIntegerType(outputs.sequence_length)) {
    throw BackendError(backend + "'s output 'sequence_length' must be an integer type");
  }
  return outputs;
}

}  // namespace triton_studio::glue
