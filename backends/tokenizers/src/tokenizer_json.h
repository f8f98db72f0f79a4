// Reading tokenizer.json. Everything but the model's vocabulary and merges becomes a JSON DOM, read
// by the components with field-named errors; those two tables (most of the file: 50,000 entries
// each for GPT-2) are read by a SAX pass straight into flat vectors, because building and freeing a
// DOM node per entry was most of the load time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_fields.h"

namespace triton_studio::tok {

// model.vocab, when it is a JSON object: entries in file order.
struct VocabTable {
  std::vector<std::pair<std::string, uint32_t>> entries;
  std::optional<std::string> bad_key;  // the first key whose value is not a non-negative integer
};

// model.merges, when it is a JSON array of "left right" strings or ["left", "right"] pairs.
struct MergeTable {
  std::vector<std::pair<std::string, std::string>> pairs;  // up to the first bad element
  std::optional<std::string> bad;  // why that element (index pairs.size()) is not a merge
};

struct TokenizerJson {
  Json root;  // without model.vocab / model.merges when they were read into the tables below
  std::optional<VocabTable> vocab;
  std::optional<MergeTable> merges;
};

// Throws TokenizerError for text that is not JSON.
TokenizerJson ParseTokenizerJson(std::string_view text);

}  // namespace triton_studio::tok
