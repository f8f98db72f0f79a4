// JSON floats read the way Hugging Face `tokenizers` reads them. serde_json (without its
// float_roundtrip feature, as HF builds it) does not round decimal text correctly: it keeps up to
// 19 significant digits in an integer, converts that to a double and multiplies or divides by a
// power of ten, which can land one unit in the last place away from the correct double. Unigram
// scores are summed and compared, so a score one ULP off picks another segmentation among equal
// ones: the library must hold the very doubles HF holds.
#pragma once

#include <optional>
#include <string_view>

namespace triton_studio::tok {

// The double serde_json's default parser gives for the JSON number `text`, or nullopt where it
// reports an error (out of range) or the text is not a JSON number.
std::optional<double> SerdeJsonF64(std::string_view text);

}  // namespace triton_studio::tok
