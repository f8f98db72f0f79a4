// The Precompiled normalizer on arbitrary charsmaps and text. The first input byte splits the rest
// into a charsmap (base64-encoded here, as tokenizer.json carries it) and text. A charsmap is either
// refused with a TokenizerError or normalizes any valid UTF-8 text into valid UTF-8, never reading
// outside its trie or replacement blob (ASan), whatever its trie units say. Every other input also
// goes through the whole XLM-R and T5 fixture pipelines (real charsmaps, Unigram): encode, then
// streaming decode equal to the full decode.
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

const triton_studio::tok::Tokenizer& Fixture(bool t5) {
  static const auto load = [](const char* name) {
    return triton_studio::tok::Tokenizer::FromFile(std::string(TS_FUZZ_FIXTURES_DIR) +
                                                   "/tokenizers/precompiled/" + name);
  };
  static const auto xlmr = load("xlm-roberta-nmt_nfkc.json");
  static const auto t5_file = load("t5-nmt_nfkc_cf.json");
  return t5 ? *t5_file : *xlmr;
}

void CheckPipeline(const triton_studio::tok::Tokenizer& tok, const std::string& text) {
  const auto ids = tok.Encode(text, true);
  const std::string full = tok.Decode(ids, false);
  triton_studio::tok::IncrementalDecoder dec(tok, false);
  std::string stream;
  for (uint32_t id : ids) stream += dec.Push(id);
  stream += dec.Finish();
  if (stream != full) fuzz::Fail("streaming decode differs from full decode");
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
  if (data[0] & 1) {
    CheckNormalizes(RealCharsmap(), text);
    CheckPipeline(Fixture((data[0] & 2) != 0), text);
  }
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
