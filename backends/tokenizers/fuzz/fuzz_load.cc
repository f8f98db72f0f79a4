// Load arbitrary tokenizer.json text: either a tokenizer or a TokenizerError, never a crash; a
// loaded tokenizer encodes and decodes a fixed sample without crashing.
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<triton_studio::tok::Tokenizer> tok;
  try {
    tok = triton_studio::tok::Tokenizer::FromJson(json);
  } catch (const triton_studio::tok::TokenizerError&) {
    return 0;
  }
  try {
    const auto ids = tok->Encode("Hello world! <s> [CLS] \xE2\x96\x81x \xF0\x9F\x98\x80 12", true);
    (void)tok->Decode(ids, false);
    triton_studio::tok::IncrementalDecoder dec(*tok, true);
    for (uint32_t id : ids) (void)dec.Push(id);
    (void)dec.Finish();
  } catch (const triton_studio::tok::TokenizerError&) {
  }
  return 0;
}
