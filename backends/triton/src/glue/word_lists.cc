// Word-list input tensors ([2, L]: ids, then end offsets) read into one list per batch row (see
// glue/word_lists.h).
#include "triton_studio/glue/word_lists.h"

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/errors.h"

namespace triton_studio::glue {

std::vector<Words> ReadWordLists(const std::optional<InputTensor>& input, int64_t rows, bool batching) {
  std::vector<Words> out(static_cast<size_t>(rows));
  if (!input) return out;
  const size_t rank = batching ? 3 : 2;
  if (!IsIntegerType(input->dtype) || input->shape.size() != rank || input->shape[rank - 2] != 2 ||
      (batching && input->shape[0] != rows)) {
    throw BackendError("input '" + input->name + "' must be integers shaped " + (batching ? "[batch, 2, L]" : "[2, L]") +
                       " (ids, then end offsets), got " + ShapeToString(input->shape));
  }
  const int64_t width = input->shape[rank - 1];
  const std::vector<int64_t> values = input->Integers();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t* ids = values.data() + r * 2 * width;
    const int64_t* offsets = ids + width;
    int64_t begin = 0;
    for (int64_t i = 0; i < width && offsets[i] >= 0; ++i) {
      if (offsets[i] < begin || offsets[i] > width) {
        throw BackendError("input '" + input->name + "' has an offset out of order or past its ids");
      }
      if (offsets[i] > begin) out[static_cast<size_t>(r)].emplace_back(ids + begin, ids + offsets[i]);
      begin = offsets[i];
    }
  }
  return out;
}

}  // namespace triton_studio::glue
