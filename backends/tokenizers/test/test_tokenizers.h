// The assembled tokenizer files (scripts/assemble-tokenizers.ts), loaded once per test binary.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "triton_studio/tokenizer.h"

namespace triton_studio::tok::testing {

inline const Tokenizer& Load(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& t = cache[name];
  if (!t) t = Tokenizer::FromFile(std::string(TS_TEST_TOKENIZERS_DIR) + "/" + name + "/tokenizer.json");
  return *t;
}

}  // namespace triton_studio::tok::testing
