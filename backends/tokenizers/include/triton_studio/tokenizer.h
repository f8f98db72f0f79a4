// Public C++ API of the Triton Studio tokenizer library.
// Loads a Hugging Face tokenizer.json and reproduces the HF `tokenizers` pipeline
// (normalizer -> pre-tokenizer -> model -> post-processor -> decoder) id for id.
// No Triton dependency: the Triton glue, the CLI and the tests all use this header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace triton_studio::tok {

// Thrown for unreadable files, malformed JSON, and configurations the library does not
// support. The message names the offending field (e.g. "pre_tokenizer.type: unsupported 'Foo'").
class TokenizerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// tokenizer.json's "truncation" object (HF TruncationParams). `stride` only shapes the overflowing
// windows HF keeps aside, which this library does not return; it still must stay below the
// length a sequence is cut to, as HF requires.
enum class TruncationStrategy { kLongestFirst, kOnlyFirst, kOnlySecond };
struct TruncationParams {
  size_t max_length = 512;
  size_t stride = 0;
  TruncationStrategy strategy = TruncationStrategy::kLongestFirst;
  bool left = false;  // direction "Left": cut from the start, keeping the end
};

// tokenizer.json's "padding" object (HF PaddingParams): `fixed_length` for {"Fixed": n}, none for
// "BatchLongest" (pad to the longest row of the batch).
struct PaddingParams {
  std::optional<size_t> fixed_length;
  size_t multiple_of = 0;  // 0: none
  bool left = false;
  uint32_t pad_id = 0;
  uint32_t pad_type_id = 0;
};

// How an encoder-style encode cuts and pads: tokenizer.json's own settings (EncoderDefaults),
// which a pipeline step may override.
struct EncoderOptions {
  std::optional<TruncationParams> truncation;
  std::optional<PaddingParams> padding;
};

// One row of a batch: a text, and for cross-encoders (rerankers) a second text.
struct EncodeInput {
  std::string_view text;
  std::optional<std::string_view> pair;
};

// What HF's Encoding holds that encoder models take; all three have the same length.
struct Encoding {
  std::vector<uint32_t> ids;
  std::vector<uint32_t> type_ids;       // 0 for the first text, 1 for the second (per the post-processor)
  std::vector<uint32_t> attention_mask;  // 1 per token, 0 per pad
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  static std::unique_ptr<Tokenizer> FromFile(const std::string& path);
  static std::unique_ptr<Tokenizer> FromJson(std::string_view json);

  // Same result as HF `tokenizer.encode(text, add_special_tokens).ids`.
  virtual std::vector<uint32_t> Encode(std::string_view text, bool add_special_tokens) const = 0;
  // Encode's ids appended to `ids`: a batch encoded into one buffer (the --jsonl CLI, the
  // benchmark) allocates nothing per text once the buffer has grown.
  virtual void EncodeAppend(std::string_view text, bool add_special_tokens, std::vector<uint32_t>& ids) const = 0;
  // EncodeAppend of each text in turn, appending to `ends` where each text's ids end in `ids`
  // (fastokens' encode_batch_flat). Faster than the loop: the texts' words are looked up together.
  virtual void EncodeFlat(const std::vector<std::string_view>& texts, bool add_special_tokens,
                          std::vector<uint32_t>& ids, std::vector<size_t>& ends) const = 0;
  // Same result as HF `tokenizer.encode_batch(inputs, add_special_tokens)` with the tokenizer's
  // truncation and padding replaced by `options`: per row, both texts truncated together, the
  // post-processor's single or pair template applied, then every row padded. Throws
  // TokenizerError where HF fails (OnlySecond without a second text, a text too short to cut
  // from, a stride not below the cut length).
  virtual std::vector<Encoding> EncodeBatch(const std::vector<EncodeInput>& inputs, bool add_special_tokens,
                                            const EncoderOptions& options) const = 0;
  // tokenizer.json's own "truncation" and "padding" (both unset when it has none).
  virtual EncoderOptions EncoderDefaults() const = 0;
  // Same result as HF `tokenizer.decode(ids, skip_special_tokens)`. Unknown ids throw TokenizerError.
  virtual std::string Decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const = 0;

  virtual std::optional<uint32_t> TokenToId(std::string_view token) const = 0;
  virtual std::optional<std::string> IdToToken(uint32_t id) const = 0;
  virtual uint32_t VocabSize() const = 0;  // including added tokens
  // End-of-sequence / padding ids when the tokenizer declares them (e.g. "<|endoftext|>", "</s>", "[PAD]").
  virtual std::optional<uint32_t> EosId() const = 0;
  virtual std::optional<uint32_t> PadId() const = 0;
};

// Streaming detokenization. Fed ids one at a time, the concatenation of everything Push/Finish
// return equals Decode(all ids). Never returns an incomplete UTF-8 sequence; keeps leading
// spaces that a full decode keeps.
class IncrementalDecoder {
 public:
  IncrementalDecoder(const Tokenizer& tokenizer, bool skip_special_tokens);
  ~IncrementalDecoder();
  IncrementalDecoder(IncrementalDecoder&&) noexcept;
  IncrementalDecoder& operator=(IncrementalDecoder&&) noexcept;

  std::string Push(uint32_t id);  // text that became final with this id (may be empty)
  std::string Finish();           // whatever is left (e.g. a trailing partial sequence as U+FFFD)

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace triton_studio::tok
