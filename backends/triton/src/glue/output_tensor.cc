// Encoding output tensors (see glue/outputs.h). No server calls.
#include <cstring>
#include <limits>
#include <type_traits>

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/outputs.h"

namespace triton_studio::glue {

namespace {
template <class T>
void Narrow(const std::string& name, const std::vector<int64_t>& values, std::vector<char>* out) {
  out->resize(values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = values[i];
    if constexpr (std::is_signed_v<T>) {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
        throw BackendError("output '" + name + "': value " + std::to_string(v) + " does not fit its data type");
      }
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) {
        throw BackendError("output '" + name + "': value " + std::to_string(v) +
                           " does not fit its unsigned data type");
      }
    }
    const T t = static_cast<T>(v);
    std::memcpy(out->data() + i * sizeof(T), &t, sizeof(T));
  }
}
}  // namespace

OutputTensor OutputTensor::Integers(const std::string& name, TRITONSERVER_DataType dtype, std::vector<int64_t> shape,
                                    const std::vector<int64_t>& values) {
  OutputTensor out;
  out.name = name;
  out.dtype = dtype;
  out.shape = std::move(shape);
  switch (dtype) {
    case TRITONSERVER_TYPE_UINT8: Narrow<uint8_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_UINT16: Narrow<uint16_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_UINT32: Narrow<uint32_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_UINT64: Narrow<uint64_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT8: Narrow<int8_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT16: Narrow<int16_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT32: Narrow<int32_t>(name, values, &out.data); break;
    case TRITONSERVER_TYPE_INT64: Narrow<int64_t>(name, values, &out.data); break;
    default:
      throw BackendError(std::string("output '") + name + "' is declared " + DataTypeName(dtype) +
                             "; it must be an integer type",
                         TRITONSERVER_ERROR_INTERNAL);
  }
  return out;
}

OutputTensor OutputTensor::Floats(const std::string& name, TRITONSERVER_DataType dtype, std::vector<int64_t> shape,
                                  const std::vector<double>& values) {
  OutputTensor out;
  out.name = name;
  out.dtype = dtype;
  out.shape = std::move(shape);
  if (dtype == TRITONSERVER_TYPE_FP32) {
    out.data.resize(values.size() * sizeof(float));
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = static_cast<float>(values[i]);
      std::memcpy(out.data.data() + i * sizeof(float), &f, sizeof(float));
    }
  } else if (dtype == TRITONSERVER_TYPE_FP64) {
    out.data.resize(values.size() * sizeof(double));
    if (!values.empty()) std::memcpy(out.data.data(), values.data(), out.data.size());
  } else {
    throw BackendError(std::string("output '") + name + "' is declared " + DataTypeName(dtype) +
                           "; it must be FP32 or FP64",
                       TRITONSERVER_ERROR_INTERNAL);
  }
  return out;
}

OutputTensor OutputTensor::Strings(const std::string& name, std::vector<int64_t> shape,
                                   const std::vector<std::string>& values) {
  OutputTensor out;
  out.name = name;
  out.dtype = TRITONSERVER_TYPE_BYTES;
  out.shape = std::move(shape);
  size_t total = 0;
  for (const auto& v : values) total += 4 + v.size();
  out.data.reserve(total);
  for (const auto& v : values) {
    if (v.size() > std::numeric_limits<uint32_t>::max()) {
      throw BackendError("output '" + name + "': a string longer than 4 GiB cannot be sent");
    }
    const uint32_t len = static_cast<uint32_t>(v.size());
    const char prefix[4] = {char(len & 0xff), char((len >> 8) & 0xff), char((len >> 16) & 0xff),
                            char((len >> 24) & 0xff)};
    out.data.insert(out.data.end(), prefix, prefix + 4);
    out.data.insert(out.data.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace triton_studio::glue
