// Data types (see glue/data_types.h). No server calls.
#include "triton_studio/glue/data_types.h"

#include <sstream>

namespace triton_studio::glue {

namespace {
struct TypeInfo {
  TRITONSERVER_DataType dtype;
  const char* name;
  size_t size;
};
constexpr TypeInfo kTypes[] = {
    {TRITONSERVER_TYPE_BOOL, "BOOL", 1},     {TRITONSERVER_TYPE_UINT8, "UINT8", 1},
    {TRITONSERVER_TYPE_UINT16, "UINT16", 2}, {TRITONSERVER_TYPE_UINT32, "UINT32", 4},
    {TRITONSERVER_TYPE_UINT64, "UINT64", 8}, {TRITONSERVER_TYPE_INT8, "INT8", 1},
    {TRITONSERVER_TYPE_INT16, "INT16", 2},   {TRITONSERVER_TYPE_INT32, "INT32", 4},
    {TRITONSERVER_TYPE_INT64, "INT64", 8},   {TRITONSERVER_TYPE_FP16, "FP16", 2},
    {TRITONSERVER_TYPE_FP32, "FP32", 4},     {TRITONSERVER_TYPE_FP64, "FP64", 8},
    {TRITONSERVER_TYPE_BYTES, "BYTES", 0},   {TRITONSERVER_TYPE_BF16, "BF16", 2},
};
}  // namespace

TRITONSERVER_DataType ParseDataType(const std::string& name) {
  std::string bare = name.rfind("TYPE_", 0) == 0 ? name.substr(5) : name;
  if (bare == "STRING") return TRITONSERVER_TYPE_BYTES;
  for (const auto& t : kTypes) {
    if (bare == t.name) return t.dtype;
  }
  return TRITONSERVER_TYPE_INVALID;
}

const char* DataTypeName(TRITONSERVER_DataType dtype) {
  for (const auto& t : kTypes) {
    if (t.dtype == dtype) return t.name;
  }
  return "INVALID";
}

bool IsIntegerType(TRITONSERVER_DataType dtype) {
  switch (dtype) {
    case TRITONSERVER_TYPE_UINT8:
    case TRITONSERVER_TYPE_UINT16:
    case TRITONSERVER_TYPE_UINT32:
    case TRITONSERVER_TYPE_UINT64:
    case TRITONSERVER_TYPE_INT8:
    case TRITONSERVER_TYPE_INT16:
    case TRITONSERVER_TYPE_INT32:
    case TRITONSERVER_TYPE_INT64:
      return true;
    default:
      return false;
  }
}

size_t DataTypeByteSize(TRITONSERVER_DataType dtype) {
  for (const auto& t : kTypes) {
    if (t.dtype == dtype) return t.size;
  }
  return 0;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
  out << ']';
  return out.str();
}

std::vector<int64_t> WithBatch(bool batching, int64_t rows, std::vector<int64_t> dims) {
  if (batching) dims.insert(dims.begin(), rows);
  return dims;
}

}  // namespace triton_studio::glue
