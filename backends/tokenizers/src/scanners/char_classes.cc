// The Split scanners' character classes (see char_classes.h): one lookup in the generated table.
#include "scanners/char_classes.h"

namespace triton_studio::tok::scanners {
namespace {
#include "scanners/onig_classes.inc"
}  // namespace

uint16_t ClassOf(char32_t c) {
  if (c >= 0x110000) return 0;
  return kOnigClassStage2[static_cast<size_t>(kOnigClassStage1[c >> 8]) * 256 + (c & 0xFF)];
}

const char* ClassTableVersion() { return TS_ONIG_CLASSES_VERSION; }

}  // namespace triton_studio::tok::scanners
