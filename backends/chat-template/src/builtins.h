// The tables of what templates can call: filters (filters.cc), tests (tests.cc), methods of
// str/list/dict (methods.cc) and globals (globals.cc). The parser resolves filter and test names
// against these tables; docs/CHAT-TEMPLATES.md lists them.
#pragma once

#include <optional>
#include <string_view>

#include "value.h"

namespace triton_studio::chat::detail {

using FilterImpl = Value (*)(Runtime& rt, const Value& subject, CallArgs& args);
using TestImpl = bool (*)(Runtime& rt, const Value& subject, CallArgs& args);

struct FilterFn {
  const char* name;
  FilterImpl fn;
};
struct TestFn {
  const char* name;
  TestImpl fn;
};

// nullptr when the name is not in the table.
const FilterFn* FindFilter(std::string_view name);
const TestFn* FindTest(std::string_view name);
// jinja2's own builtin names (whether the engine implements them or not): an unimplemented
// builtin is an unsupported construct, any other name an error as in jinja2.
bool IsJinjaFilter(std::string_view name);
bool IsJinjaTest(std::string_view name);

// Python methods: whether `subject.name` is a method (jinja2 prefers attributes over items for
// `a.b`), and calling it. CallMethod throws UnsupportedConstructError for a Python method the
// engine does not implement, ValueError for a sandbox-refused (mutating) one.
enum class MethodKind { None, Supported, Unsafe, Unsupported };
MethodKind LookupMethod(const Value& subject, std::string_view name);
Value CallMethod(Runtime& rt, const Value& subject, std::string_view name, CallArgs& args, int line);
// A bound method as a value (`x.items` not called).
Value BoundMethod(const Value& subject, std::string_view name);

// Globals (range, namespace, dict, raise_exception, strftime_now, cycler, joiner); nullopt when absent.
std::optional<Value> FindGlobal(std::string_view name);

// Python `%` formatting and str.format, shared by the `format` filter and the operator/method.
std::string PercentFormat(std::string_view format, const Value& args);
std::string BraceFormat(std::string_view format, const CallArgs& args);

}  // namespace triton_studio::chat::detail
