// Decoding request tensors (InputTensor) and encoding response tensors (OutputTensor): the byte
// layouts Triton uses, and the errors a malformed request gets.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/inputs.h"
#include "triton_studio/glue/outputs.h"
#include "triton_studio/glue/word_lists.h"

using namespace triton_studio::glue;

namespace {
template <class T>
std::vector<char> Bytes(const std::vector<T>& values) {
  std::vector<char> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

InputTensor Input(TRITONSERVER_DataType dtype, std::vector<int64_t> shape, std::vector<char> data) {
  InputTensor t;
  t.name = "x";
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

// The error message a call throws, or "" when it does not.
template <class F>
std::string ErrorOf(F&& f) {
  try {
    f();
  } catch (const BackendError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(InputTensor, ElementCountIsTheProductOfTheShape) {
  EXPECT_EQ(Input(TRITONSERVER_TYPE_INT32, {2, 3}, {}).ElementCount(), 6);
  EXPECT_EQ(Input(TRITONSERVER_TYPE_INT32, {}, {}).ElementCount(), 1);  // a scalar
  EXPECT_EQ(Input(TRITONSERVER_TYPE_INT32, {4, 0}, {}).ElementCount(), 0);
}

TEST(InputTensor, StringsRoundTripThroughOutputEncoding) {
  const std::vector<std::string> values = {"Hello", "", std::string("a\0b", 3), "\xF0\x9F\x98\x80"};
  OutputTensor out = OutputTensor::Strings("x", {4}, values);
  EXPECT_EQ(out.dtype, TRITONSERVER_TYPE_BYTES);
  EXPECT_EQ(out.data.size(), 4 * 4 + 5 + 0 + 3 + 4);
  EXPECT_EQ(std::string(out.data.data(), 4), std::string("\x05\x00\x00\x00", 4));  // little-endian length
  EXPECT_EQ(Input(TRITONSERVER_TYPE_BYTES, {4}, out.data).Strings(), values);
}

TEST(InputTensor, MalformedBytesAreRejectedWithWhatIsWrong) {
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_BYTES, {1}, {'\x01', 0}).Strings(); }),
            "input 'x': BYTES element 0 is truncated (each element needs a 4-byte length prefix)");
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_BYTES, {1}, {9, 0, 0, 0, 'a'}).Strings(); }),
            "input 'x': BYTES element 0 declares 9 bytes but only 1 remain");
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_BYTES, {1}, {1, 0, 0, 0, 'a', 'b'}).Strings(); }),
            "input 'x': 1 bytes left over after 1 BYTES elements of shape [1]");
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_INT32, {1}, Bytes<int32_t>({1})).Strings(); }),
            "input 'x' must be BYTES (STRING), got INT32");
}

TEST(InputTensor, IntegersOfEveryWidthWiden) {
  EXPECT_EQ(Input(TRITONSERVER_TYPE_INT8, {2}, Bytes<int8_t>({-128, 127})).Integers(),
            (std::vector<int64_t>{-128, 127}));
  EXPECT_EQ(Input(TRITONSERVER_TYPE_UINT16, {1}, Bytes<uint16_t>({65535})).Integers(), (std::vector<int64_t>{65535}));
  EXPECT_EQ(Input(TRITONSERVER_TYPE_INT32, {1, 2}, Bytes<int32_t>({-1, 50256})).Integers(),
            (std::vector<int64_t>{-1, 50256}));
  EXPECT_EQ(Input(TRITONSERVER_TYPE_UINT32, {1}, Bytes<uint32_t>({4000000000u})).Integers(),
            (std::vector<int64_t>{4000000000}));
  EXPECT_EQ(Input(TRITONSERVER_TYPE_INT64, {1}, Bytes<int64_t>({std::numeric_limits<int64_t>::min()})).Integers(),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
}

TEST(InputTensor, IntegerErrors) {
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_UINT64, {1}, Bytes<uint64_t>({~0ull})).Integers(); }),
            "input 'x': UINT64 value 18446744073709551615 is too large");
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_INT32, {2}, Bytes<int32_t>({1})).Integers(); }),
            "input 'x' has 4 bytes, expected 8 for shape [2]");
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_FP32, {1}, Bytes<float>({1})).Integers(); }),
            "input 'x' must hold integers, got FP32");
}

TEST(InputTensor, Floats) {
  EXPECT_EQ(Input(TRITONSERVER_TYPE_FP32, {2}, Bytes<float>({0.5f, -2})).Floats(), (std::vector<double>{0.5, -2}));
  EXPECT_EQ(Input(TRITONSERVER_TYPE_FP64, {1}, Bytes<double>({1e300})).Floats(), (std::vector<double>{1e300}));
  EXPECT_EQ(ErrorOf([] { Input(TRITONSERVER_TYPE_INT32, {1}, Bytes<int32_t>({1})).Floats(); }),
            "input 'x' must hold FP32 or FP64 values, got INT32");
}

TEST(OutputTensor, IntegersNarrowWithARangeCheck) {
  OutputTensor ids = OutputTensor::Integers("ids", TRITONSERVER_TYPE_UINT32, {1, 2}, {0, 4294967295});
  EXPECT_EQ(ids.data, Bytes<uint32_t>({0, 4294967295u}));
  EXPECT_EQ(ids.shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(OutputTensor::Integers("o", TRITONSERVER_TYPE_INT16, {1}, {-32768}).data, Bytes<int16_t>({-32768}));

  EXPECT_EQ(ErrorOf([] { OutputTensor::Integers("ids", TRITONSERVER_TYPE_UINT32, {1}, {-1}); }),
            "output 'ids': value -1 does not fit its unsigned data type");
  EXPECT_EQ(ErrorOf([] { OutputTensor::Integers("ids", TRITONSERVER_TYPE_INT8, {1}, {128}); }),
            "output 'ids': value 128 does not fit its data type");
  try {
    OutputTensor::Integers("ids", TRITONSERVER_TYPE_FP32, {1}, {1});
    FAIL() << "expected an error";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), TRITONSERVER_ERROR_INTERNAL);  // a generated-step bug, not the client's
  }
}

TEST(OutputTensor, Floats) {
  EXPECT_EQ(OutputTensor::Floats("b", TRITONSERVER_TYPE_FP32, {2}, {0.25, -1}).data, Bytes<float>({0.25f, -1}));
  EXPECT_EQ(OutputTensor::Floats("b", TRITONSERVER_TYPE_FP64, {1}, {0.1}).data, Bytes<double>({0.1}));
  EXPECT_TRUE(OutputTensor::Floats("b", TRITONSERVER_TYPE_FP32, {0}, {}).data.empty());
  EXPECT_THROW(OutputTensor::Floats("b", TRITONSERVER_TYPE_INT32, {1}, {1}), BackendError);
}

// TensorRT-LLM's word lists, [batch, 2, L]: ids back to back, then end offsets padded with -1.
TEST(WordLists, SplitEachRowsIdsAtItsOffsets) {
  // Row 0: words [5, 6] and [7]; row 1: word [8] only (ids padded with 0, offsets with -1).
  const InputTensor lists = Input(TRITONSERVER_TYPE_INT32, {2, 2, 3},
                                  Bytes(std::vector<int32_t>{5, 6, 7, 2, 3, -1, 8, 0, 0, 1, -1, -1}));
  const std::vector<Words> words = ReadWordLists(lists, 2, /*batching=*/true);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0], (Words{{5, 6}, {7}}));
  EXPECT_EQ(words[1], (Words{{8}}));
  EXPECT_EQ(ReadWordLists(std::nullopt, 3, true), std::vector<Words>(3));
}

TEST(WordLists, RefuseAnotherShapeAndOffsetsOutOfOrder) {
  const InputTensor three_rows = Input(TRITONSERVER_TYPE_INT32, {1, 3, 1}, Bytes(std::vector<int32_t>{1, 1, 1}));
  EXPECT_NE(ErrorOf([&] { ReadWordLists(three_rows, 1, true); }).find("[batch, 2, L]"), std::string::npos);
  const InputTensor backwards = Input(TRITONSERVER_TYPE_INT32, {2, 2}, Bytes(std::vector<int32_t>{1, 2, 2, 1}));
  EXPECT_NE(ErrorOf([&] { ReadWordLists(backwards, 1, false); }).find("out of order"), std::string::npos);
}
