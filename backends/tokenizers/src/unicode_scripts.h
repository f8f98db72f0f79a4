// The `UnicodeScripts` pre-tokenizer: splits where the Unicode script changes, as HF tokenizers
// does (pre_tokenizers/unicode_scripts), with HF's own script table: Unicode 9.0's Scripts.txt
// (SentencePiece's), every code point it does not list being "Any" (script_tables.inc, from
// scripts/gen-unicode-tables.ts).
#pragma once

#include <memory>
#include <string>

#include "json_fields.h"
#include "pre_tokenizers.h"

namespace triton_studio::tok {

std::unique_ptr<PreTokenizer> MakeUnicodeScripts(const Json& node, const std::string& path);

}  // namespace triton_studio::tok
