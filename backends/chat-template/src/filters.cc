// The filter table: the filters the engine implements (filters_text.cc, filters_sequence.cc,
// filters_value.cc) and jinja2's own builtin names, which the parser resolves filter names against.
#include "builtins.h"
#include "filters.h"

namespace triton_studio::chat::detail {

namespace {

using namespace filters;

const FilterFn kFilters[] = {
    {"abs", Abs},
    {"attr", Attr},
    {"batch", Batch},
    {"capitalize", Capitalize},
    {"center", Center},
    {"count", Count},
    {"d", Default},
    {"default", Default},
    {"dictsort", DictSort},
    {"e", Escape},
    {"escape", Escape},
    {"first", First},
    {"float", ToFloat},
    {"forceescape", Escape},
    {"format", Format},
    {"indent", Indent},
    {"int", ToInt},
    {"items", ItemsFilter},
    {"join", Join},
    {"last", Last},
    {"length", Length},
    {"list", ToList},
    {"lower", Lower},
    {"map", Map},
    {"max", Max},
    {"min", Min},
    {"reject", Reject},
    {"rejectattr", RejectAttr},
    {"replace", Replace},
    {"reverse", Reverse},
    {"round", Round},
    {"safe", Safe},
    {"select", Select},
    {"selectattr", SelectAttr},
    {"sort", Sort},
    {"string", ToString},
    {"sum", Sum},
    {"title", Title},
    {"tojson", ToJson},
    {"trim", Trim},
    {"unique", Unique},
    {"upper", Upper},
    {"wordcount", WordCount},
};

const char* const kJinjaFilters[] = {
    "abs",       "attr",      "batch",  "capitalize", "center",  "count",   "d",          "default",
    "dictsort",  "e",         "escape", "filesizeformat", "first", "float", "forceescape", "format",
    "groupby",   "indent",    "int",    "items",      "join",    "last",    "length",     "list",
    "lower",     "map",       "max",    "min",        "pprint",  "random",  "reject",     "rejectattr",
    "replace",   "reverse",   "round",  "safe",       "select",  "selectattr", "slice",   "sort",
    "string",    "striptags", "sum",    "title",      "tojson",  "trim",    "truncate",   "unique",
    "upper",     "urlencode", "urlize", "wordcount",  "wordwrap", "xmlattr",
};

}  // namespace

const FilterFn* FindFilter(std::string_view name) {
  for (const auto& f : kFilters) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

bool IsJinjaFilter(std::string_view name) {
  for (const char* f : kJinjaFilters) {
    if (name == f) return true;
  }
  return false;
}

}  // namespace triton_studio::chat::detail
