// HF's SplitDelimiterBehavior (see split_behavior.h).
#include "split_behavior.h"

#include <algorithm>

namespace triton_studio::tok {

Behavior ParseBehavior(const Json& node, const std::string& path) {
  const std::string b = GetString(node, "behavior", path);
  if (b == "Removed") return Behavior::kRemoved;
  if (b == "Isolated") return Behavior::kIsolated;
  if (b == "MergedWithPrevious") return Behavior::kMergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::kMergedWithNext;
  if (b == "Contiguous") return Behavior::kContiguous;
  FieldError(path + ".behavior", "unsupported split behavior '" + b + "'");
}

void ApplyBehavior(const std::vector<SplitSegment>& segs, Behavior behavior, std::vector<Range>& out) {
  switch (behavior) {
    case Behavior::kRemoved:
      for (const auto& s : segs)
        if (!s.is_match) out.push_back(s.range);
      return;
    case Behavior::kIsolated:
      for (const auto& s : segs) out.push_back(s.range);
      return;
    case Behavior::kContiguous: {
      bool prev_match = false;
      const size_t first = out.size();
      // HF joins any two neighbours with the same flag: after an inverted regex, those are the
      // runs of text between adjacent matches.
      for (const auto& s : segs) {
        if (s.is_match == prev_match && out.size() > first) {
          out.back().second = s.range.second;
        } else {
          out.push_back(s.range);
        }
        prev_match = s.is_match;
      }
      return;
    }
    case Behavior::kMergedWithPrevious: {
      bool prev_match = false;
      const size_t first = out.size();
      for (const auto& s : segs) {
        if (s.is_match && !prev_match && out.size() > first) {
          out.back().second = s.range.second;
        } else {
          out.push_back(s.range);
        }
        prev_match = s.is_match;
      }
      return;
    }
    case Behavior::kMergedWithNext: {
      // A delimiter joins the segment after it unless that one is a delimiter too.
      bool next_match = false;
      std::vector<Range> rev;
      for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        if (it->is_match && !next_match && !rev.empty()) {
          rev.back().first = it->range.first;
        } else {
          rev.push_back(it->range);
        }
        next_match = it->is_match;
      }
      out.insert(out.end(), rev.rbegin(), rev.rend());
      return;
    }
  }
}

void ApplyBehaviorNonEmpty(const std::vector<SplitSegment>& segs, Behavior behavior, std::vector<Range>& out) {
  const size_t first = out.size();
  ApplyBehavior(segs, behavior, out);
  out.erase(std::remove_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                           [](const Range& r) { return r.first == r.second; }),
            out.end());
}

}  // namespace triton_studio::tok
