// Python str operations over UTF-8 (whitespace, strip, split, case mapping) as CPython does them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace triton_studio::chat::detail {

bool IsPyWhitespace(uint32_t cp);
// str.strip/lstrip/rstrip(chars): chars nullopt strips whitespace.
std::string_view PyStrip(std::string_view s, const std::optional<std::string_view>& chars, bool left, bool right);
// str.split(sep, maxsplit) and rsplit; sep nullopt splits on whitespace runs.
std::vector<std::string> PySplit(std::string_view s, const std::optional<std::string_view>& sep, int64_t maxsplit,
                                 bool from_right);
std::vector<std::string> PySplitLines(std::string_view s, bool keepends);
// Case mapping for the scripts it covers (Latin, Greek, Cyrillic; caseless scripts pass through);
// throws UnsupportedConstructError for a character it cannot map exactly.
std::string PyUpper(std::string_view s);
std::string PyLower(std::string_view s);
std::string PyCapitalize(std::string_view s);  // str.capitalize()
std::string PyTitle(std::string_view s);       // str.title()
bool PyIsLower(std::string_view s);
bool PyIsUpper(std::string_view s);

}  // namespace triton_studio::chat::detail
