// Triton data types as the glue reads and writes them (no server calls: unit-tested alone).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

// "TYPE_UINT32" / "UINT32" (config spelling) / "BYTES" / "STRING" -> the enum; INVALID if unknown.
TRITONSERVER_DataType ParseDataType(const std::string& name);
// "UINT32", "BYTES", ... (the KServe spelling Triton uses in errors and metadata).
const char* DataTypeName(TRITONSERVER_DataType dtype);
bool IsIntegerType(TRITONSERVER_DataType dtype);
size_t DataTypeByteSize(TRITONSERVER_DataType dtype);  // 0 for BYTES / INVALID
std::string ShapeToString(const std::vector<int64_t>& shape);
// `dims` prefixed with the batch dimension when the model batches (max_batch_size > 0).
std::vector<int64_t> WithBatch(bool batching, int64_t rows, std::vector<int64_t> dims);

}  // namespace triton_studio::glue
