// HF's SplitDelimiterBehavior: what a Split-style pre-tokenizer keeps of the matches it finds and
// of the text between them.
#pragma once

#include <string>
#include <vector>

#include "json_fields.h"
#include "pre_tokenizers.h"

namespace triton_studio::tok {

enum class Behavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// The node's "behavior" field; an unknown one is a FieldError naming the values.
Behavior ParseBehavior(const Json& node, const std::string& path);

// One matched or unmatched segment of a piece.
struct SplitSegment {
  Range range;
  bool is_match;
};

// Applies `behavior` to the segments of one piece (which cover it in order), appending the
// resulting ranges.
void ApplyBehavior(const std::vector<SplitSegment>& segs, Behavior behavior, std::vector<Range>& out);

// ApplyBehavior, then dropping empty pieces as HF does: a regex may match the empty string, and
// its empty matches still steer the merging behaviors before they vanish.
void ApplyBehaviorNonEmpty(const std::vector<SplitSegment>& segs, Behavior behavior, std::vector<Range>& out);

}  // namespace triton_studio::tok
