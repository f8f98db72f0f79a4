// Hooks compiled from a TypeScript module (docs/HOOKS.md), as the step runtimes call them. A
// generated step.cc fills one StepHooks from its compiled module and passes it with its spec; the
// tokenize and detokenize steps — and the native orchestrator — call them through the seams of
// tokenize_runner.h (PromptHook) and stream_text.h (ChunkHook, EndHook). Text crosses as UTF-8;
// the compiled functions see JavaScript strings. Every member may be empty (no such hook). A hook
// that throws (a TS `throw new Error`) fails the request it ran for, and only that one.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace triton_studio::steps {

struct StepHooks {
  // The fields of the module's HookInputs: optional STRING inputs of the step, read per row.
  std::vector<std::string> input_names;
  // beforeEncode(prompt, inputs): `inputs[i]` is row's value of input_names[i] ("" when absent).
  std::function<std::string(const std::string& prompt, const std::vector<std::string>& inputs)> before_encode;
  // afterDecode(text): the whole text of an answer that is not streamed.
  std::function<std::string(const std::string& text)> after_decode;
  // startStream() → a request's state; onChunk(state, delta) → delta; endStream(state) → last delta.
  std::function<std::shared_ptr<void>()> start_stream;
  std::function<std::string(void* state, const std::string& chunk)> on_chunk;
  std::function<std::string(void* state)> end_stream;

  bool streams() const { return start_stream && on_chunk && end_stream; }
};

}  // namespace triton_studio::steps
