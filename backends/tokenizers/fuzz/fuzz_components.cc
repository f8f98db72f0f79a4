// Pipelines of the components added for current model families, on arbitrary text and ids: the
// first input bytes pick a normalizer, pre-tokenizer, decoder and model options (regex Split with
// each behavior, Digits, Punctuation, Metaspace, ByteLevel without its regex, UnicodeScripts,
// FixedLength, NFC/NFKC/NFKD, Nmt, ByteLevel, StripAccents, regex Replace, CTC, BPEDecoder, a
// Unigram model with and without byte fallback).
// Precompiled is fuzzed by fuzz_precompiled (its real charsmaps make a pipeline slow to build). Encoding never
// fails on these well-formed files, decoding never throws, streaming equals the full decode and
// every streamed piece is valid UTF-8.
#include <map>
#include <mutex>

#include "../src/utf8.h"
#include "fuzz_common.h"

namespace {

const char* const kNormalizers[] = {
    "null",
    R"({"type": "NFC"})",
    R"({"type": "NFKC"})",
    R"({"type": "NFKD"})",
    R"({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]})",
    R"({"type": "Replace", "pattern": {"String": ""}, "content": "_"})",
    R"({"type": "Sequence", "normalizers": [{"type": "Strip", "strip_left": true, "strip_right": false}, {"type": "Prepend", "prepend": "▁"}, {"type": "Lowercase"}]})",
    R"({"type": "Nmt"})",
    R"({"type": "ByteLevel"})",
    R"({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}]})",
};

const char* const kBehaviors[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};

std::string PreTokenizer(uint8_t choice) {
  const std::string behavior = kBehaviors[(choice >> 4) % 5];
  const std::string invert = (choice & 0x80) ? "true" : "false";
  const std::string byte_level =
      R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false})";
  switch (choice % 12) {
    case 0: return "null";
    case 1:  // Llama-3's split rule
      return R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, )" +
             byte_level + "]}";
    case 2:  // DeepSeek-V3's three splits
      return R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "\\p{N}{1,3}"}, "behavior": "Isolated", "invert": false}, {"type": "Split", "pattern": {"Regex": "[一-龥぀-ゟ゠-ヿ]+"}, "behavior": "Isolated", "invert": false}, {"type": "Split", "pattern": {"Regex": "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false}, )" +
             byte_level + "]}";
    case 3:  // empty lookahead matches, runs and bounded repeats under every behavior
      return R"({"type": "Split", "pattern": {"Regex": "(?=\\p{Lu})|\\s+|\\p{N}{1,2}|x*"}, "behavior": ")" + behavior +
             R"(", "invert": )" + invert + "}";
    case 4: return R"({"type": "Digits", "individual_digits": )" + invert + "}";
    case 5: return R"({"type": "Punctuation", "behavior": ")" + behavior + "\"}";
    case 6:
      return R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": ")" +
             std::string((choice >> 4) % 3 == 0 ? "always" : (choice >> 4) % 3 == 1 ? "first" : "never") +
             R"(", "split": )" + invert + "}";
    case 7: return byte_level;
    case 8: return R"({"type": "Split", "pattern": {"String": ""}, "behavior": ")" + behavior + "\", \"invert\": " + invert + "}";
    case 9: return R"({"type": "Sequence", "pretokenizers": [{"type": "UnicodeScripts"}, )" + byte_level + "]}";
    case 10:
      return R"({"type": "Sequence", "pretokenizers": [{"type": "FixedLength", "length": )" +
             std::to_string((choice >> 4) % 7 + 1) + "}, " + byte_level + "]}";
    default: return R"({"type": "WhitespaceSplit"})";
  }
}

const char* const kDecoders[] = {
    R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true})",
    R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": true})",
    R"({"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "▁", "cleanup": true})",
    R"({"type": "BPEDecoder", "suffix": "▁"})",
    R"({"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"Regex": "▁+"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 1}]})",
    R"({"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "BPEDecoder", "suffix": "▁"}]})",
    R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true})",
    R"({"type": "WordPiece", "prefix": "▁", "cleanup": true})",
};

// A small Unigram vocabulary: specials, the word-start mark, letters, digits, some words and,
// for byte fallback, every <0xXX> byte token.
std::string UnigramModel(bool byte_fallback) {
  std::string v = R"([["<unk>", 0], ["<pad>", 0], ["<s>", 0], ["</s>", 0], ["▁", -2.5])";
  const char* words[] = {"▁the", "▁a", "▁hello", "▁world", "he", "ll", "o", "▁x", "ab", "é", "日本", "語", "▁▁"};
  for (const char* w : words) v += std::string(R"(, [")") + w + R"(", -4.25])";
  for (char c = 'a'; c <= 'z'; ++c) v += std::string(R"(, [")") + c + R"(", -7.5])";
  for (char c = '0'; c <= '9'; ++c) v += std::string(R"(, [")") + c + R"(", -6])";
  if (byte_fallback) {
    char buf[40];
    for (int b = 0; b < 256; ++b) {
      std::snprintf(buf, sizeof buf, R"(, ["<0x%02X>", -12.125])", b);
      v += buf;
    }
  }
  v += "]";
  return std::string(R"({"type": "Unigram", "unk_id": 0, "byte_fallback": )") + (byte_fallback ? "true" : "false") +
         R"(, "vocab": )" + v + "}";
}

const triton_studio::tok::Tokenizer& Pipeline(uint8_t n, uint8_t p, uint8_t d) {
  static std::map<uint32_t, std::unique_ptr<triton_studio::tok::Tokenizer>> cache;
  static std::mutex mutex;
  const uint32_t key = (static_cast<uint32_t>(n) << 16) | (static_cast<uint32_t>(p) << 8) | d;
  std::lock_guard<std::mutex> lock(mutex);
  // Up to 16M byte triples name a few thousand pipelines, each with its own word cache: keep a
  // bounded set (an unbounded one ran the fuzzer out of memory after 800k executions).
  if (cache.size() >= 256 && cache.find(key) == cache.end()) cache.clear();
  auto& slot = cache[key];
  if (!slot) {
    const std::string json =
        std::string(R"({"version": "1.0", "added_tokens": [{"id": 2, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}], "normalizer": )") +
        kNormalizers[n % std::size(kNormalizers)] + R"(, "pre_tokenizer": )" + PreTokenizer(p) +
        R"(, "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}], "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [2], "tokens": ["<s>"]}}}, "decoder": )" +
        kDecoders[d % std::size(kDecoders)] + R"(, "model": )" + UnigramModel((d & 0x80) != 0) + "}";
    slot = triton_studio::tok::Tokenizer::FromJson(json);  // a throw here is a bug: the fuzzer reports it
  }
  return *slot;
}

void CheckStreaming(const triton_studio::tok::Tokenizer& tok, const std::vector<uint32_t>& ids, bool skip) {
  const std::string full = tok.Decode(ids, skip);
  triton_studio::tok::IncrementalDecoder dec(tok, skip);
  std::string stream;
  for (uint32_t id : ids) {
    const std::string piece = dec.Push(id);
    if (!triton_studio::tok::utf8::IsValid(piece)) fuzz::Fail("Push returned invalid UTF-8");
    stream += piece;
  }
  stream += dec.Finish();
  if (stream != full) fuzz::Fail("streaming decode differs from full decode");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const auto& tok = Pipeline(data[0], data[1], data[2]);
  const bool flags = data[3];
  data += 4;
  size -= 4;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto ids = tok.Encode(text, (flags & 1) != 0);
  CheckStreaming(tok, ids, (flags & 2) != 0);
  CheckStreaming(tok, fuzz::Ids(tok, data, size), (flags & 4) != 0);
  return 0;
}
