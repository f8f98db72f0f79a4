// Decode arbitrary id sequences: the text is always valid UTF-8.
#include "../src/utf8.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& tok = fuzz::Pick(data, size);
  const std::string text = tok.Decode(fuzz::Ids(tok, data, size), (size & 1) != 0);
  if (!triton_studio::tok::utf8::IsValid(text)) fuzz::Fail("Decode returned invalid UTF-8");
  return 0;
}
