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
  bool tiles;  // see SplitScanner::tiles
  SplitScanIntoFn scan_into = nullptr;
};

// DeepSeek-V3's three patterns (its file has CR and LF as raw characters in classes).
constexpr std::string_view kDeepSeekDigits = R"(\p{N}{1,3})";
constexpr std::string_view kDeepSeekCjk = "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+";
constexpr std::string_view kDeepSeekWords =
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^)"
    "\r\n"
    R"(\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[)"
    "\r\n"
    R"(]*|\s*[)"
    "\r\n"
    R"(]+|\s+(?!\S)|\s+)";

// One row per hand-written scanner; a pattern not listed here runs in Oniguruma.
constexpr ScannerEntry kScanners[] = {
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     scanners::ScanCl100k, true, scanners::ScanCl100kInto},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     scanners::ScanQwen2, true, scanners::ScanQwen2Into},
    // gpt-oss
    {R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     scanners::ScanO200k, true, scanners::ScanO200kInto},
    // DeepSeek-V3 (a Sequence of these three)
    {kDeepSeekDigits, scanners::ScanDigits1To3, false},
    {kDeepSeekCjk, scanners::ScanCjkKana, false},
    {kDeepSeekWords, scanners::ScanDeepSeekWords, false},  // a digit or control character alone matches nothing
};

// Runs of Isolated Splits that a Sequence applies in turn, scanned as one: the patterns, in order.
// Their pieces tile the text by construction (the text between matches is a piece too).
struct SequenceEntry {
  std::vector<std::string_view> patterns;
  SplitScanFn scan;
  SplitScanIntoFn scan_into;
};

const std::vector<SequenceEntry>& SequenceScanners() {
  static const std::vector<SequenceEntry> entries = {
      {{kDeepSeekDigits, kDeepSeekCjk, kDeepSeekWords}, scanners::ScanDeepSeekSequence,
       scanners::ScanDeepSeekSequenceInto},
  };
  return entries;
}

}  // namespace

std::vector<std::string_view> SplitScannerPatterns() {
  std::vector<std::string_view> patterns;
  for (const auto& entry : kScanners) patterns.push_back(entry.pattern);
  return patterns;
}

std::vector<std::vector<std::string_view>> SequenceScannerPatterns() {
  std::vector<std::vector<std::string_view>> sequences;
  for (const auto& entry : SequenceScanners()) sequences.push_back(entry.patterns);
  return sequences;
}

SplitScanner FindSplitScanner(std::string_view pattern) {
  if (pattern.empty()) return {};
  for (const auto& entry : kScanners)
    if (entry.pattern == pattern) return {entry.scan, entry.tiles, entry.scan_into};
  return {};
}

SplitScanner FindSequenceScanner(const std::vector<std::string_view>& patterns) {
  for (const auto& entry : SequenceScanners())
    if (entry.patterns == patterns) return {entry.scan, true, entry.scan_into};
  return {};
}

}  // namespace triton_studio::tok
