// The FixedLength pre-tokenizer: runs of `length` code points (see fixed_length.h).
#include "fixed_length.h"

#include <cstdint>
#include <vector>

#include "utf8.h"

namespace triton_studio::tok {
namespace {

class FixedLength final : public PreTokenizer {
 public:
  explicit FixedLength(uint64_t length) : length_(length) {}
  void PreTokenize(Pieces& pieces) const override {
    std::vector<Range> out;
    out.reserve(pieces.ranges.size());
    const std::string_view text(pieces.text);
    for (const Range& r : pieces.ranges) {
      uint32_t start = r.first;
      uint64_t count = 0;
      for (uint32_t i = r.first; i < r.second;) {
        size_t n = utf8::ValidSequenceLength(text, i);
        i += static_cast<uint32_t>(n == 0 ? 1 : n);
        if (++count == length_) {
          out.emplace_back(start, i);
          start = i;
          count = 0;
        }
      }
      if (start < r.second) out.emplace_back(start, r.second);
    }
    pieces.ranges.swap(out);
  }

 private:
  uint64_t length_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeFixedLength(const Json& node, const std::string& path) {
  AllowOnlyKeys(node, path, {"length"});
  const uint64_t length = GetUint(node, "length", path, 5);
  // HF's own library panics on 0 (a chunk size of zero); refuse it at load instead.
  if (length == 0) FieldError(path + ".length", "must be at least 1 (code points per piece)");
  return std::make_unique<FixedLength>(length);
}

}  // namespace triton_studio::tok
