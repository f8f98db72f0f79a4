// Pre-tokenizers: split normalized text into the pieces the model tokenizes independently. Each
// class mirrors the HF pre-tokenizer of the same name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_fields.h"

namespace triton_studio::tok {

using Range = std::pair<uint32_t, uint32_t>;  // [begin, end) byte offsets

// Pieces of one input span: text (valid UTF-8) and the ranges of it that are pieces, in order.
struct Pieces {
  // The span's text: the caller's, not copied, until a pre-tokenizer makes new text (Rewrite).
  std::string_view text;
  std::string rewritten;
  std::vector<Range> ranges;
  // True when the span begins at byte 0 of the caller's input (HF's "first" prepend scheme).
  bool at_input_start = true;
  // Room a pre-tokenizer may build its output ranges in and swap with `ranges`: the caller keeps
  // Pieces between encodes, so that is not a malloc and free per encoded string.
  std::vector<Range> spare;

  // Makes `new_text` the text (kept in `rewritten`); `new_text` gets the old buffer back.
  void Rewrite(std::string& new_text) {
    rewritten.swap(new_text);
    text = rewritten;
  }
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits every range of `pieces` further; may rewrite `pieces.text`.
  virtual void PreTokenize(Pieces& pieces) const = 0;
  // True when the output pieces must be read through GPT-2's byte-to-character alphabet (ByteLevel).
  virtual bool ByteLevelOutput() const { return false; }
  // What PreTokenize does to a span's one whole range, when that is a scanner's matches as they
  // are (they tile the span; nothing rewritten): EncodeFlat then calls the scanner alone, without
  // the Pieces round trip, into its batch's array of ranges. `identity`: it splits nothing.
  struct AsScan {
    // Writes the matches to `out`, which has room for text.size() + kScanIntoSlack; returns how many.
    size_t (*scan)(std::string_view text, Range* out) = nullptr;
    bool identity = false;
  };
  static constexpr size_t kScanIntoSlack = 65;
  virtual AsScan AsScanner() const { return {}; }
};

std::unique_ptr<PreTokenizer> MakePreTokenizer(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
