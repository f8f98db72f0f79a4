// The Tokenizer implementation: HF's pipeline assembled from tokenizer.json.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "added_vocabulary.h"
#include "decoders.h"
#include "models.h"
#include "normalizers.h"
#include "post_processors.h"
#include "pre_tokenizers.h"
#include "tokenizer_json.h"
#include "triton_studio/tokenizer.h"

namespace triton_studio::tok {

class HfTokenizer final : public Tokenizer {
 public:
  explicit HfTokenizer(const TokenizerJson& file);

  std::vector<uint32_t> Encode(std::string_view text, bool add_special_tokens) const override;
  void EncodeAppend(std::string_view text, bool add_special_tokens, std::vector<uint32_t>& ids) const override;
  void EncodeFlat(const std::vector<std::string_view>& texts, bool add_special_tokens, std::vector<uint32_t>& ids,
                  std::vector<size_t>& ends) const override;
  std::vector<Encoding> EncodeBatch(const std::vector<EncodeInput>& inputs, bool add_special_tokens,
                                    const EncoderOptions& options) const override;
  EncoderOptions EncoderDefaults() const override { return {truncation_, padding_}; }
  std::string Decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const override;
  std::optional<uint32_t> TokenToId(std::string_view token) const override;
  std::optional<std::string> IdToToken(uint32_t id) const override;
  uint32_t VocabSize() const override { return vocab_size_; }
  std::optional<uint32_t> EosId() const override { return eos_id_; }
  std::optional<uint32_t> PadId() const override { return pad_id_; }

  // Whether a decode reads `id` (false: a special token to skip); throws for unknown ids.
  bool Decodes(uint32_t id, bool skip_special_tokens) const {
    const uint8_t kind = id < decode_kinds_.size() ? decode_kinds_[id] : uint8_t{kUnknown};
    if (kind == kUnknown) ThrowUnknownId(id);
    return !(skip_special_tokens && kind == kSpecial);
  }
  const DecoderChain& decoder() const { return decoder_; }

 private:
  // Where each of HF's splits (an added token, or one pre-token) ends in the ids, for truncation.
  struct SplitEnd {
    size_t end;
    bool added;
  };
  // EncodeFlat's texts, collected: their pre-tokenized spans and added tokens, in order, for one
  // model call. Spans are views of the caller's texts; a span of other text (repaired UTF-8, a
  // normalizer's or pre-tokenizer's output, which the next text overwrites) flushes what is
  // collected and is tokenized at once.
  struct FlatBatch {
    struct Item {
      std::string_view text;  // a span's, empty for an added token
      uint32_t first = 0, count = 0;  // its ranges: ranges[first, first + count)
      std::optional<uint32_t> id;  // an added token's
    };
    std::string_view input;  // the text being collected
    // The spans' ranges, one after another, written in place by the scanner (Room): a vector per
    // span, taken over and given back, cost a copy of a block of pieces per span. Grown, never
    // shrunk but after a huge text, so that it is zero-filled once, not per batch.
    std::vector<Range> ranges;
    size_t used = 0;              // ranges[0, used) are the spans'
    size_t words = 0, bytes = 0;  // in the spans
    std::vector<Item> items;
    std::vector<std::pair<size_t, size_t>> text_ends;  // (text, items before its end)
    size_t* ends = nullptr;  // the caller's, per text

    // Room for `count` more ranges after the spans', for the next AddSpan.
    Range* Room(size_t count) {
      if (ranges.size() < used + count) ranges.resize(std::max(used + count, 2 * ranges.size()));
      return ranges.data() + used;
    }
    void AddId(uint32_t id) { items.push_back({{}, 0, 0, id}); }
    // A span whose `count` ranges were written to Room's array.
    void AddSpan(std::string_view span, size_t count) {
      items.push_back({span, static_cast<uint32_t>(used), static_cast<uint32_t>(count), std::nullopt});
      used += count;
      words += count;
      bytes += span.size();
    }
    void Clear() {
      if (ranges.size() > (1 << 17)) ranges = {};  // a huge text's
      used = words = bytes = 0;
      items.clear();
      text_ends.clear();
    }
  };
  // Tokenizes what `batch` holds, appending to `ids` and setting its texts' ends.
  void Flush(FlatBatch& batch, std::vector<uint32_t>& ids) const;
  // An added token's id, or a pre-tokenized span: to `ids` (through the model), or to `batch`.
  static void AddId(uint32_t id, std::vector<uint32_t>& ids, FlatBatch* batch) {
    if (batch) {
      batch->AddId(id);
    } else {
      ids.push_back(id);
    }
  }
  void AddSpan(Pieces& pieces, std::vector<uint32_t>& ids, FlatBatch* batch) const;
  // EncodeSequence into `batch` for a tokenizer whose pipeline is added tokens and one scanner
  // (scan_): the same spans without the layers between. False, with nothing collected, for text
  // that needs them (invalid UTF-8, text the normalizer changes) or is over 1 MiB.
  bool CollectScanned(std::string_view text, FlatBatch& batch) const;
  void EncodeText(std::string_view text, bool at_input_start, std::vector<uint32_t>& ids,
                  std::vector<SplitEnd>* splits = nullptr, FlatBatch* batch = nullptr) const;
  // One text through added tokens, normalizer, pre-tokenizer and model (HF encode_single_sequence),
  // its ids appended to `ids`. With `splits`, each split's end in `ids` is recorded
  // (encoder_pipeline.cc cuts at them as HF's tokenize_with_limit does).
  void EncodeSequence(std::string_view input, std::vector<uint32_t>& ids, std::vector<SplitEnd>* splits = nullptr,
                      FlatBatch* batch = nullptr) const;
  std::vector<uint32_t> EncodeLimited(std::string_view text, const TruncationParams& params) const;
  // HF post_process for one row (encoder_pipeline.cc): truncate, add specials and type ids, pad alone.
  Encoding PostProcess(std::vector<uint32_t> a, std::optional<std::vector<uint32_t>> b, bool add_special_tokens,
                       const EncoderOptions& options) const;
  // What decoding reads for an id: an added token's decode form, else the model's token.
  const std::string* TokenForDecode(uint32_t id) const;
  [[noreturn]] void ThrowUnknownId(uint32_t id) const;

  enum : uint8_t { kUnknown, kRegular, kSpecial };
  std::vector<uint8_t> decode_kinds_;  // per id

  AddedVocabulary added_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<PostProcessor> post_processor_;
  // When the post-processor puts fixed ids before and after a single sequence (every template,
  // BERT's and RoBERTa's), those ids: EncodeFlat adds them without processing each text's ids.
  std::optional<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> wrap_;
  // The pre-tokenizer as one scanner (or none), when it is one: what EncodeFlat's CollectScanned
  // serves, for text the normalizer (if any) keeps as it is.
  PreTokenizer::AsScan scan_;
  void FindWrap();
  DecoderChain decoder_;
  bool byte_level_ = false;
  std::optional<TruncationParams> truncation_;
  std::optional<PaddingParams> padding_;
  uint32_t vocab_size_ = 0;
  std::optional<uint32_t> eos_id_, pad_id_;
};

}  // namespace triton_studio::tok
