#include "split_scanner.h"

namespace triton_studio::tok {
namespace {

struct ScannerEntry {
  std::string_view pattern;
  SplitScanFn scan;
};

// One row per hand-written scanner; a pattern not listed here runs in Oniguruma.
constexpr ScannerEntry kScanners[] = {
    {"", nullptr},  // placeholder row: an empty pattern never selects a scanner
};

}  // namespace

SplitScanFn FindSplitScanner(std::string_view pattern) {
  if (pattern.empty()) return nullptr;
  for (const auto& entry : kScanners)
    if (entry.pattern == pattern) return entry.scan;
  return nullptr;
}

}  // namespace triton_studio::tok
