// Jinja parser: tokens to the Template tree. Errors name line and column (TemplateSyntaxError);
// a construct the engine does not implement is named (UnsupportedConstructError).
#pragma once

#include <memory>
#include <string_view>

#include "ast.h"

namespace triton_studio::chat::detail {

std::unique_ptr<Template> ParseTemplate(std::string_view source);

}  // namespace triton_studio::chat::detail
