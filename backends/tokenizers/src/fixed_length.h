// The `FixedLength` pre-tokenizer: cuts each piece into runs of `length` code points (the last one
// shorter), as HF tokenizers does (pre_tokenizers/fixed_length; `length` 5 when the file sets none).
#pragma once

#include <memory>
#include <string>

#include "json_fields.h"
#include "pre_tokenizers.h"

namespace triton_studio::tok {

std::unique_ptr<PreTokenizer> MakeFixedLength(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
