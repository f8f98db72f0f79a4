#include <gtest/gtest.h>

#include <string>

#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/model_config.h"

using namespace triton_studio::glue;

namespace {
ModelConfig Parse(const std::string& json) { return ModelConfig::FromJson(json.data(), json.data() + json.size()); }

// The shape Triton's TRITONBACKEND_ModelConfig(model, 1, ...) serializes (protobuf JSON).
const char* kConfig = R"({
  "name": "preprocessing", "max_batch_size": 8,
  "input": [{"name": "QUERY", "data_type": "TYPE_STRING", "dims": ["1"]}],
  "output": [{"name": "INPUT_ID", "data_type": "TYPE_INT32", "dims": ["-1"]}],
  "model_transaction_policy": {"decoupled": true},
  "parameters": {
    "add_special_tokens": {"string_value": "False"},
    "stream_idle_timeout_s": {"string_value": "2.5"},
    "bad_bool": {"string_value": "yes"},
    "bad_number": {"string_value": "-1"},
    "not_a_string": {"int_value": 3}
  }
})";
}  // namespace

TEST(ModelConfig, ReadsNameBatchingAndDecoupled) {
  ModelConfig c = Parse(kConfig);
  EXPECT_EQ(c.name, "preprocessing");
  EXPECT_EQ(c.max_batch_size, 8);
  EXPECT_TRUE(c.batching());
  EXPECT_TRUE(c.decoupled);

  ModelConfig plain = Parse(R"({"name": "m"})");
  EXPECT_EQ(plain.max_batch_size, 0);
  EXPECT_FALSE(plain.batching());
  EXPECT_FALSE(plain.decoupled);
}

TEST(ModelConfig, Tensors) {
  ModelConfig c = Parse(kConfig);
  EXPECT_TRUE(c.HasTensor("QUERY", false));
  EXPECT_FALSE(c.HasTensor("QUERY", true));  // inputs and outputs are separate lists
  EXPECT_EQ(c.TensorDataType("QUERY", false), TRITONSERVER_TYPE_BYTES);
  EXPECT_EQ(c.TensorDataType("INPUT_ID", true), TRITONSERVER_TYPE_INT32);
  EXPECT_EQ(c.TensorDataType("missing", true), TRITONSERVER_TYPE_INVALID);
}

TEST(ModelConfig, StringParameters) {
  ModelConfig c = Parse(kConfig);
  EXPECT_EQ(c.Parameter("add_special_tokens"), std::optional<std::string>("False"));
  EXPECT_EQ(c.Parameter("absent"), std::nullopt);
  EXPECT_EQ(c.Parameter("not_a_string"), std::nullopt);
  EXPECT_FALSE(c.BoolParameter("add_special_tokens", true));
  EXPECT_TRUE(c.BoolParameter("absent", true));
  EXPECT_DOUBLE_EQ(c.NumberParameter("stream_idle_timeout_s", 60), 2.5);
  EXPECT_DOUBLE_EQ(c.NumberParameter("absent", 60), 60);
}

TEST(ModelConfig, BadParameterValuesNameTheModelAndTheKey) {
  ModelConfig c = Parse(kConfig);
  try {
    c.BoolParameter("bad_bool", false);
    FAIL() << "expected an error";
  } catch (const BackendError& e) {
    EXPECT_STREQ(e.what(), "model 'preprocessing': parameter 'bad_bool' must be \"true\" or \"false\", got \"yes\"");
    EXPECT_EQ(e.code(), TRITONSERVER_ERROR_INVALID_ARG);
  }
  EXPECT_THROW(c.NumberParameter("bad_number", 0), BackendError);
  EXPECT_THROW(NumberParameterValue("m", "k", "1.5x"), BackendError);
  EXPECT_THROW(NumberParameterValue("m", "k", ""), BackendError);
  EXPECT_DOUBLE_EQ(NumberParameterValue("m", "k", "0"), 0);
}

TEST(ModelConfig, MalformedJsonThrows) { EXPECT_ANY_THROW(Parse("{\"name\": ")); }
