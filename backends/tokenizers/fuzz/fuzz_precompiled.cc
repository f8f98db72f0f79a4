// The Precompiled normalizer on arbitrary charsmaps and text. The first input byte splits the rest
// into a charsmap (base64-encoded here, as tokenizer.json carries it) and text; every other input
// also normalizes its text with XLM-R's real charsmap. A charsmap is either refused with a
// TokenizerError or normalizes any valid UTF-8 text into valid UTF-8, never reading outside its
// trie or replacement blob (ASan), whatever its trie units say.
#include <fstream>
#include <sstream>

#include "../src/normalizers.h"
#include "../src/utf8.h"
#include "fuzz_common.h"

namespace {

std::string Base64(std::string_view bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += digits[v >> 18 & 63];
    out += digits[v >> 12 & 63];
    out += i + 1 < bytes.size() ? digits[v >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

const triton_studio::tok::Normalizer& RealCharsmap() {
  static const auto normalizer = [] {
    std::ifstream in(std::string(TS_FUZZ_FIXTURES_DIR) + "/tokenizers/precompiled/xlm-roberta-nmt_nfkc.json");
    std::stringstream text;
    text << in.rdbuf();
    const auto json = nlohmann::json::parse(text.str());
    return triton_studio::tok::MakeNormalizer(json["normalizer"]["normalizers"][0], "normalizer");
  }();
  return *normalizer;
}

void CheckNormalizes(const triton_studio::tok::Normalizer& normalizer, std::string text) {
  normalizer.Normalize(text);
  if (!triton_studio::tok::utf8::IsValid(text)) fuzz::Fail("Precompiled produced invalid UTF-8");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t split = std::min<size_t>(data[0] * 4u, size - 1);
  const std::string_view charsmap(reinterpret_cast<const char*>(data + 1), split);
  std::string text;
  triton_studio::tok::utf8::AppendLossy(
      std::string_view(reinterpret_cast<const char*>(data + 1 + split), size - 1 - split), text);
  if (data[0] & 1) CheckNormalizes(RealCharsmap(), text);
  std::unique_ptr<triton_studio::tok::Normalizer> normalizer;
  try {
    normalizer = triton_studio::tok::MakeNormalizer(
        nlohmann::json{{"type", "Precompiled"}, {"precompiled_charsmap", Base64(charsmap)}}, "normalizer");
  } catch (const triton_studio::tok::TokenizerError&) {
    return 0;  // refused at load, with a message: fine
  }
  CheckNormalizes(*normalizer, text);
  return 0;
}
