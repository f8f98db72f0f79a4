// The Split scanners' character classes (see char_classes.h): the generated table.
#include "scanners/char_classes.h"

namespace triton_studio::tok::scanners {
namespace {
#include "scanners/onig_classes.inc"
}  // namespace

const uint16_t* const kClassStage1 = kOnigClassStage1;
const uint16_t* const kClassStage2 = kOnigClassStage2;

const char* ClassTableVersion() { return TS_ONIG_CLASSES_VERSION; }

}  // namespace triton_studio::tok::scanners
