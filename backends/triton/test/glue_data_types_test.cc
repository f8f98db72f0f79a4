#include <gtest/gtest.h>

#include "triton_studio/glue/data_types.h"

using namespace triton_studio::glue;

TEST(DataTypes, ParsesConfigAndKServeSpellings) {
  EXPECT_EQ(ParseDataType("TYPE_UINT32"), TRITONSERVER_TYPE_UINT32);
  EXPECT_EQ(ParseDataType("UINT32"), TRITONSERVER_TYPE_UINT32);
  EXPECT_EQ(ParseDataType("TYPE_STRING"), TRITONSERVER_TYPE_BYTES);
  EXPECT_EQ(ParseDataType("BYTES"), TRITONSERVER_TYPE_BYTES);
  EXPECT_EQ(ParseDataType("TYPE_BF16"), TRITONSERVER_TYPE_BF16);
  EXPECT_EQ(ParseDataType("uint32"), TRITONSERVER_TYPE_INVALID);  // Triton's spellings are upper case
  EXPECT_EQ(ParseDataType("TYPE_"), TRITONSERVER_TYPE_INVALID);
  EXPECT_EQ(ParseDataType(""), TRITONSERVER_TYPE_INVALID);
}

TEST(DataTypes, NameAndSizeOfEveryType) {
  struct Expect {
    TRITONSERVER_DataType dtype;
    const char* name;
    size_t size;
  };
  const Expect all[] = {
      {TRITONSERVER_TYPE_BOOL, "BOOL", 1},   {TRITONSERVER_TYPE_UINT8, "UINT8", 1},
      {TRITONSERVER_TYPE_UINT16, "UINT16", 2}, {TRITONSERVER_TYPE_UINT32, "UINT32", 4},
      {TRITONSERVER_TYPE_UINT64, "UINT64", 8}, {TRITONSERVER_TYPE_INT8, "INT8", 1},
      {TRITONSERVER_TYPE_INT16, "INT16", 2},   {TRITONSERVER_TYPE_INT32, "INT32", 4},
      {TRITONSERVER_TYPE_INT64, "INT64", 8},   {TRITONSERVER_TYPE_FP16, "FP16", 2},
      {TRITONSERVER_TYPE_FP32, "FP32", 4},     {TRITONSERVER_TYPE_FP64, "FP64", 8},
      {TRITONSERVER_TYPE_BYTES, "BYTES", 0},   {TRITONSERVER_TYPE_BF16, "BF16", 2},
  };
  for (const auto& e : all) {
    EXPECT_STREQ(DataTypeName(e.dtype), e.name);
    EXPECT_EQ(DataTypeByteSize(e.dtype), e.size) << e.name;
    EXPECT_EQ(ParseDataType(std::string("TYPE_") + e.name), e.dtype) << e.name;
  }
  EXPECT_STREQ(DataTypeName(TRITONSERVER_TYPE_INVALID), "INVALID");
  EXPECT_EQ(DataTypeByteSize(TRITONSERVER_TYPE_INVALID), 0u);
}

TEST(DataTypes, IntegerTypesAreExactlyTheEightIntegerKinds) {
  int integers = 0;
  for (int t = TRITONSERVER_TYPE_INVALID; t <= TRITONSERVER_TYPE_BF16; ++t) {
    integers += IsIntegerType(static_cast<TRITONSERVER_DataType>(t)) ? 1 : 0;
  }
  EXPECT_EQ(integers, 8);
  EXPECT_FALSE(IsIntegerType(TRITONSERVER_TYPE_BOOL));
  EXPECT_FALSE(IsIntegerType(TRITONSERVER_TYPE_FP32));
}

TEST(DataTypes, ShapesAndTheBatchDimension) {
  EXPECT_EQ(ShapeToString({}), "[]");
  EXPECT_EQ(ShapeToString({2, -1, 3}), "[2,-1,3]");
  EXPECT_EQ(WithBatch(true, 4, {2, -1}), (std::vector<int64_t>{4, 2, -1}));
  EXPECT_EQ(WithBatch(false, 4, {2, -1}), (std::vector<int64_t>{2, -1}));
}
