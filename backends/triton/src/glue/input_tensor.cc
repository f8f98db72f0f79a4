// Decoding input tensors (see glue/inputs.h). No server calls.
#include <cstring>
#include <limits>
#include <type_traits>

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/inputs.h"

namespace triton_studio::glue {

int64_t InputTensor::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::vector<std::string> InputTensor::Strings() const {
  if (dtype != TRITONSERVER_TYPE_BYTES) {
    throw BackendError("input '" + name + "' must be BYTES (STRING), got " + DataTypeName(dtype));
  }
  const int64_t count = ElementCount();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(count));
  size_t pos = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (data.size() - pos < 4) {
      throw BackendError("input '" + name + "': BYTES element " + std::to_string(i) +
                         " is truncated (each element needs a 4-byte length prefix)");
    }
    const auto* p = reinterpret_cast<const unsigned char*>(data.data() + pos);
    const uint32_t len = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    pos += 4;
    if (data.size() - pos < len) {
      throw BackendError("input '" + name + "': BYTES element " + std::to_string(i) + " declares " +
                         std::to_string(len) + " bytes but only " + std::to_string(data.size() - pos) +
                         " remain");
    }
    out.emplace_back(data.data() + pos, len);
    pos += len;
  }
  if (pos != data.size()) {
    throw BackendError("input '" + name + "': " + std::to_string(data.size() - pos) +
                       " bytes left over after " + std::to_string(count) + " BYTES elements of shape " +
                       ShapeToString(shape));
  }
  return out;
}

namespace {
template <class T>
void Widen(const std::vector<char>& data, std::vector<int64_t>* out) {
  const size_t n = data.size() / sizeof(T);
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw BackendError("UINT64 value " + std::to_string(v) + " is too large");
      }
    }
    (*out)[i] = static_cast<int64_t>(v);
  }
}

}  // namespace

std::vector<int64_t> InputTensor::Integers() const {
  std::vector<int64_t> out;
  const size_t size = DataTypeByteSize(dtype);
  if (!IsIntegerType(dtype)) {
    throw BackendError("input '" + name + "' must hold integers, got " + DataTypeName(dtype));
  }
  if (data.size() != static_cast<size_t>(ElementCount()) * size) {
    throw BackendError("input '" + name + "' has " + std::to_string(data.size()) + " bytes, expected " +
                       std::to_string(ElementCount() * size) + " for shape " + ShapeToString(shape));
  }
  try {
    switch (dtype) {
      case TRITONSERVER_TYPE_UINT8: Widen<uint8_t>(data, &out); break;
      case TRITONSERVER_TYPE_UINT16: Widen<uint16_t>(data, &out); break;
      case TRITONSERVER_TYPE_UINT32: Widen<uint32_t>(data, &out); break;
      case TRITONSERVER_TYPE_UINT64: Widen<uint64_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT8: Widen<int8_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT16: Widen<int16_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT32: Widen<int32_t>(data, &out); break;
      case TRITONSERVER_TYPE_INT64: Widen<int64_t>(data, &out); break;
      default: break;
    }
  } catch (const BackendError& e) {
    throw BackendError("input '" + name + "': " + e.what());
  }
  return out;
}

std::vector<double> InputTensor::Floats() const {
  if (dtype != TRITONSERVER_TYPE_FP32 && dtype != TRITONSERVER_TYPE_FP64) {
    throw BackendError("input '" + name + "' must hold FP32 or FP64 values, got " + DataTypeName(dtype));
  }
  const size_t size = DataTypeByteSize(dtype);
  if (data.size() != static_cast<size_t>(ElementCount()) * size) {
    throw BackendError("input '" + name + "' has " + std::to_string(data.size()) + " bytes, expected " +
                       std::to_string(ElementCount() * size) + " for shape " + ShapeToString(shape));
  }
  std::vector<double> out(data.size() / size);
  for (size_t i = 0; i < out.size(); ++i) {
    if (dtype == TRITONSERVER_TYPE_FP32) {
      float f = 0;
      std::memcpy(&f, data.data() + i * size, size);
      out[i] = f;
    } else {
      std::memcpy(&out[i], data.data() + i * size, size);
    }
  }
  return out;
}

}  // namespace triton_studio::glue
