// Shared setup of the libFuzzer targets: the tokenizers under test are the assembled
// tokenizer.json files (TS_FUZZ_TOKENIZERS names their directory; default .cache/tokenizers).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "triton_studio/tokenizer.h"

namespace fuzz {

inline std::vector<std::unique_ptr<triton_studio::tok::Tokenizer>>& Tokenizers() {
  static std::vector<std::unique_ptr<triton_studio::tok::Tokenizer>> all = [] {
    const char* env = std::getenv("TS_FUZZ_TOKENIZERS");
    const std::string dir = env ? env : ".cache/tokenizers";
    std::vector<std::unique_ptr<triton_studio::tok::Tokenizer>> v;
    for (const char* name : {"gpt2", "codegen-350M-mono", "llama-2", "mistral-7b", "bert-base-uncased", "llama-3.1",
                             "qwen3", "deepseek-v3", "gemma-3", "gpt-oss"}) {
      v.push_back(triton_studio::tok::Tokenizer::FromFile(dir + "/" + name + "/tokenizer.json"));
    }
    return v;
  }();
  return all;
}

// The first input byte picks the tokenizer; the rest is the payload.
inline const triton_studio::tok::Tokenizer& Pick(const uint8_t*& data, size_t& size) {
  auto& all = Tokenizers();
  const size_t i = size > 0 ? data[0] % all.size() : 0;
  if (size > 0) {
    ++data;
    --size;
  }
  return *all[i];
}

// Ids from the payload: little-endian uint16 values mapped into the vocabulary (so most are valid).
inline std::vector<uint32_t> Ids(const triton_studio::tok::Tokenizer& tok, const uint8_t* data, size_t size) {
  std::vector<uint32_t> ids;
  for (size_t i = 0; i + 1 < size; i += 2) ids.push_back((data[i] | (data[i + 1] << 8)) % tok.VocabSize());
  return ids;
}

[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

}  // namespace fuzz
