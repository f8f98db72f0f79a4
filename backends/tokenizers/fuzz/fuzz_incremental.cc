// Streaming decode of arbitrary ids: every piece is valid UTF-8 and the pieces add up to the full
// decode.
#include "../src/utf8.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& tok = fuzz::Pick(data, size);
  const bool skip = (size & 1) != 0;
  const auto ids = fuzz::Ids(tok, data, size);
  triton_studio::tok::IncrementalDecoder dec(tok, skip);
  std::string stream;
  for (uint32_t id : ids) {
    const std::string piece = dec.Push(id);
    if (!triton_studio::tok::utf8::IsValid(piece)) fuzz::Fail("Push returned invalid UTF-8");
    stream += piece;
  }
  stream += dec.Finish();
  if (stream != tok.Decode(ids, skip)) fuzz::Fail("streaming decode differs from full decode");
  return 0;
}
