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

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  static std::unique_ptr<Tokenizer> FromFile(const std::string& path);
  static std::unique_ptr<Tokenizer> FromJson(std::string_view json);

  // Same result as HF `tokenizer.encode(text, add_special_tokens).ids`.
  virtual std::vector<uint32_t> Encode(std::string_view text, bool add_special_tokens) const = 0;
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
