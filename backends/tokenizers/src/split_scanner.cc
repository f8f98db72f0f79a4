// The table of hand-written Split scanners by the regex they replace (see split_scanner.h).
#include "split_scanner.h"

#include "scanners/cl100k_style.h"

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
