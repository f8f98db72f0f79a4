// The table of hand-written Split scanners by the regex they replace (see split_scanner.h).
#include "split_scanner.h"

#include "scanners/cl100k_style.h"
#include "scanners/deepseek_v3.h"
#include "scanners/o200k_style.h"

namespace triton_studio::tok {
namespace {

struct ScannerEntry {
  std::string_view pattern;
  SplitScanFn scan;
};

// One row per hand-written scanner; a pattern not listed here runs in Oniguruma.
constexpr ScannerEntry kScanners[] = {
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     scanners::ScanCl100k},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     scanners::ScanQwen2},
    // gpt-oss
    {R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     scanners::ScanO200k},
    // DeepSeek-V3 (a Sequence of these three; its file has CR and LF as raw characters in classes)
    {R"(\p{N}{1,3})", scanners::ScanDigits1To3},
    {"[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+", scanners::ScanCjkKana},
    {R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^)"
     "\r\n"
     R"(\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[)"
     "\r\n"
     R"(]*|\s*[)"
     "\r\n"
     R"(]+|\s+(?!\S)|\s+)",
     scanners::ScanDeepSeekWords},
};

}  // namespace

std::vector<std::string_view> SplitScannerPatterns() {
  std::vector<std::string_view> patterns;
  for (const auto& entry : kScanners) patterns.push_back(entry.pattern);
  return patterns;
}

SplitScanFn FindSplitScanner(std::string_view pattern) {
  if (pattern.empty()) return nullptr;
  for (const auto& entry : kScanners)
    if (entry.pattern == pattern) return entry.scan;
  return nullptr;
}

}  // namespace triton_studio::tok
