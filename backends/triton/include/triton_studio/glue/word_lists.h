// TensorRT-LLM's stop / bad word lists as model steps receive them: per batch row [2, L], the
// words' ids back to back, then each word's end offset (ids padded with 0, offsets with -1).
// Decoding is server-free, so it is unit-tested alone; sim-llm and the llama.cpp step share it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "triton_studio/glue/inputs.h"

namespace triton_studio::glue {

using Words = std::vector<std::vector<int64_t>>;

// One list of words per batch row (`rows` empty lists when the input is absent); throws
// BackendError for a tensor of another shape or offsets out of order.
std::vector<Words> ReadWordLists(const std::optional<InputTensor>& input, int64_t rows, bool batching);

}  // namespace triton_studio::glue
