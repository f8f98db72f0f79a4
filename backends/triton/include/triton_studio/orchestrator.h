// The native orchestrator: one Triton model that owns each request of a streaming pipeline. It
// tokenizes the text request (the pipeline's tokenize step, hooks included, run in-process), sends the token
// request to the model step through the server API (as the Python backend's BLS does), decodes
// the model's streamed token responses incrementally with state that lives and dies with the
// request, applies stop sequences on the text (cancelling the model request when one matches),
// and streams text deltas on its own response factory. No request id is needed, any number of
// instances may run, and a client's cancellation reaches the model.
//
// A generated step.cc describes one pipeline as an OrchestratorSpec (the tokenize and detokenize
// steps' specs plus the wiring around the model step) and registers it with TS_ORCHESTRATOR.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "triton_studio/steps.h"

namespace triton_studio::steps {

// One input of the model step's request: a tokenize output, or an input of the client's request
// passed through as the ensemble would pass it (left out when the client did not send it).
struct TargetInput {
  std::string name;  // the model step's input
  bool from_tokenize = false;
  std::string source;  // the tokenize output or the client's input it comes from
};

struct OrchestratorSpec {
  std::string model_name;  // the model clients call (the pipeline's name)
  TokenizeSpec tokenize;   // tensor names are the tokenize step's ports
  // tokenize input -> the client's input wired to it
  std::vector<std::pair<std::string, std::string>> tokenize_inputs;
  DetokenizeSpec detokenize;  // tensor names are the detokenize step's ports
  std::string target;         // the model step's name
  std::vector<TargetInput> target_inputs;
  std::string target_tokens;           // the model output wired to the detokenize step's tokens
  std::string target_sequence_length;  // ... to its sequence lengths ("" when not wired)
  TensorSpec text_output;              // the client's text output (BYTES)
  // The client's input whose strings end the text where they appear ("" = none): the input wired
  // to the tokenize step's stop words.
  std::string stop_words_input;
  // The tokenize and detokenize steps' compiled TypeScript hooks (docs/HOOKS.md), run as those steps
  // run them: beforeEncode per row with its hook inputs (tokenize ports, so wired in
  // tokenize_inputs); afterDecode on an answer the model sends whole; startStream/onChunk/endStream
  // per sequence of a streamed answer, with state owned by the request. Empty: no hooks.
  StepHooks tokenize_hooks;
  StepHooks detokenize_hooks;
};

std::unique_ptr<glue::BackendModel> CreateOrchestratorModel(TRITONBACKEND_Model* model, const OrchestratorSpec& spec);

}  // namespace triton_studio::steps

// Registers an orchestrator: SPEC_FN is a function returning `const OrchestratorSpec&`.
#define TS_ORCHESTRATOR(SPEC_FN)                                                                    \
  namespace {                                                                                       \
  std::unique_ptr<::triton_studio::glue::BackendModel> TsCreateStepModel(TRITONBACKEND_Model* model) { \
    return ::triton_studio::steps::CreateOrchestratorModel(model, SPEC_FN());                       \
  }                                                                                                 \
  }                                                                                                 \
  TS_TRITON_BACKEND(TsCreateStepModel)
