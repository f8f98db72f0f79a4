// The bounds on tokenizer.json input (see input_limits.h), checked on the raw text.
#include "input_limits.h"

#include <string>

#include "triton_studio/tokenizer.h"

namespace triton_studio::tok {

void CheckTokenizerJsonLimits(std::string_view text) {
  if (text.size() > kMaxTokenizerJsonBytes)
    throw TokenizerError("tokenizer.json: the file is " + std::to_string(text.size()) + " bytes, over the limit of " +
                         std::to_string(kMaxTokenizerJsonBytes) + " (no real tokenizer is this large)");
  // Brackets outside strings open and close containers; the JSON parser checks the rest.
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxTokenizerJsonDepth)
        throw TokenizerError("tokenizer.json: nested deeper than " + std::to_string(kMaxTokenizerJsonDepth) +
                             " levels at byte " + std::to_string(i) +
                             " (Hugging Face refuses such files too: recursion limit exceeded)");
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace triton_studio::tok
