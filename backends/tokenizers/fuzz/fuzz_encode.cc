// Encode arbitrary bytes (valid UTF-8 or not) with every tokenizer: never crashes, and decoding
// the ids of valid input never throws.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& tok = fuzz::Pick(data, size);
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto ids = tok.Encode(text, (size & 1) != 0);
  (void)tok.Decode(ids, (size & 2) != 0);
  return 0;
}
