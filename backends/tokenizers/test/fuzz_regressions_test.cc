// Every input a fuzzer ever crashed the library with (fuzz/regressions/<target>/) stays fixed:
// loading it fails with a TokenizerError that names tokenizer.json, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "triton_studio/tokenizer.h"

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryLoadFindingIsAnError) {
  const fs::path dir = fs::path(TS_TEST_FUZZ_REGRESSIONS_DIR) / "load";
  size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    ++cases;
    try {
      triton_studio::tok::Tokenizer::FromJson(buf.str());
      ADD_FAILURE() << entry.path() << " loaded";
    } catch (const triton_studio::tok::TokenizerError& e) {
      EXPECT_NE(std::string(e.what()).find("tokenizer.json"), std::string::npos) << entry.path() << ": " << e.what();
    }
  }
  EXPECT_GT(cases, 0u) << "no regression inputs found in " << dir;
}
