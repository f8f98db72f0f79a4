// The implementations of jinja2's builtin filters, by kind: text (filters_text.cc), sequences and
// mappings (filters_sequence.cc), values and numbers (filters_value.cc); the table that names them
// is filters.cc. Also the argument helpers they share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "builtins.h"
#include "runtime.h"

namespace triton_studio::chat::detail::filters {

inline std::optional<Value> Arg(const CallArgs& a, size_t i, std::string_view name) { return a.Get(i, name); }

inline bool ArgBool(const CallArgs& a, size_t i, std::string_view name, bool def) {
  auto v = Arg(a, i, name);
  return v ? Truthy(*v) : def;
}

inline std::string ArgStr(const CallArgs& a, size_t i, std::string_view name, std::string def) {
  auto v = Arg(a, i, name);
  return v && !v->is_undefined() ? ToStr(*v) : def;
}

// The items of an iterable filter subject; None is not iterable.
inline std::vector<Value> Items(const Value& v) {
  if (v.is_none()) throw ValueError("'NoneType' object is not iterable");
  return Iterate(v);
}

// filters_text.cc
Value Trim(Runtime& rt, const Value& v, CallArgs& a);
Value Upper(Runtime& rt, const Value& v, CallArgs& a);
Value Lower(Runtime& rt, const Value& v, CallArgs& a);
Value Capitalize(Runtime& rt, const Value& v, CallArgs& a);
Value Title(Runtime& rt, const Value& v, CallArgs& a);
Value Replace(Runtime& rt, const Value& v, CallArgs& a);
Value Indent(Runtime& rt, const Value& v, CallArgs& a);
Value Center(Runtime& rt, const Value& v, CallArgs& a);
Value Escape(Runtime& rt, const Value& v, CallArgs& a);
Value Safe(Runtime& rt, const Value& v, CallArgs& a);
Value Format(Runtime& rt, const Value& v, CallArgs& a);
Value WordCount(Runtime& rt, const Value& v, CallArgs& a);

// filters_sequence.cc
Value Length(Runtime& rt, const Value& v, CallArgs& a);
Value Join(Runtime& rt, const Value& v, CallArgs& a);
Value First(Runtime& rt, const Value& v, CallArgs& a);
Value Last(Runtime& rt, const Value& v, CallArgs& a);
Value ToList(Runtime& rt, const Value& v, CallArgs& a);
Value Count(Runtime& rt, const Value& v, CallArgs& a);
Value ItemsFilter(Runtime& rt, const Value& v, CallArgs& a);
Value DictSort(Runtime& rt, const Value& v, CallArgs& a);
Value Sort(Runtime& rt, const Value& v, CallArgs& a);
Value Reverse(Runtime& rt, const Value& v, CallArgs& a);
Value Unique(Runtime& rt, const Value& v, CallArgs& a);
Value Max(Runtime& rt, const Value& v, CallArgs& a);
Value Min(Runtime& rt, const Value& v, CallArgs& a);
Value Sum(Runtime& rt, const Value& v, CallArgs& a);
Value Map(Runtime& rt, const Value& v, CallArgs& a);
Value Select(Runtime& rt, const Value& v, CallArgs& a);
Value Reject(Runtime& rt, const Value& v, CallArgs& a);
Value SelectAttr(Runtime& rt, const Value& v, CallArgs& a);
Value RejectAttr(Runtime& rt, const Value& v, CallArgs& a);
Value Attr(Runtime& rt, const Value& v, CallArgs& a);
Value Batch(Runtime& rt, const Value& v, CallArgs& a);

// filters_value.cc
Value Default(Runtime& rt, const Value& v, CallArgs& a);
Value ToJson(Runtime& rt, const Value& v, CallArgs& a);
Value ToString(Runtime& rt, const Value& v, CallArgs& a);
Value ToInt(Runtime& rt, const Value& v, CallArgs& a);
Value ToFloat(Runtime& rt, const Value& v, CallArgs& a);
Value Abs(Runtime& rt, const Value& v, CallArgs& a);
Value Round(Runtime& rt, const Value& v, CallArgs& a);

}  // namespace triton_studio::chat::detail::filters
