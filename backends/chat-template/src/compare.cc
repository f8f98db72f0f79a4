// Python's truthiness, == and < over the value model (numbers across int/float, strings in code
// point order, lists and tuples element-wise, dicts by content).
#include <algorithm>

#include "value.h"

namespace triton_studio::chat::detail {

namespace {

bool EqualAt(const Value& a, const Value& b, int depth);
bool LessAt(const Value& a, const Value& b, int depth);

}  // namespace

bool Truthy(const Value& v) {
  switch (v.type()) {
    case Type::Undefined:
    case Type::None:
      return false;
    case Type::Bool:
      return v.as_bool();
    case Type::Int:
      return v.as_int() != 0;
    case Type::Float:
      return v.as_double() != 0.0;
    case Type::String:
      return !v.str().empty();
    case Type::List:
      return v.is_generator() || v.size() != 0;
    case Type::Dict:
      return v.size() != 0;
    case Type::Object:
      return true;
  }
  return true;
}

bool Equal(const Value& a, const Value& b) { return EqualAt(a, b, 0); }
bool Less(const Value& a, const Value& b) { return LessAt(a, b, 0); }

namespace {

bool EqualAt(const Value& a, const Value& b, int depth) {
  CheckNesting(depth);
  if (a.is_number() && b.is_number()) {
    if (a.type() == Type::Float || b.type() == Type::Float) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Undefined:
    case Type::None:
      return true;
    case Type::String:
      return a.str() == b.str();
    case Type::List: {
      if (a.is_generator() || b.is_generator()) return a.same_identity(b);
      if ((a.view() != nullptr) != (b.view() != nullptr)) return false;
      if (a.is_tuple() != b.is_tuple() || a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!EqualAt(a.at(i), b.at(i), depth + 1)) return false;
      }
      return true;
    }
    case Type::Dict: {
      if (a.size() != b.size()) return false;
      bool equal = true;
      a.ForEachEntry([&](const Value& k, const Value& v) {
        if (!equal) return;
        auto other = b.get(k.str());
        equal = other && EqualAt(v, *other, depth + 1);
      });
      return equal;
    }
    case Type::Object:
      return a.same_identity(b);
    default:
      return false;
  }
}

bool LessAt(const Value& a, const Value& b, int depth) {
  CheckNesting(depth);
  if (a.is_number() && b.is_number()) {
    if (a.type() == Type::Float || b.type() == Type::Float) return a.as_double() < b.as_double();
    return a.as_int() < b.as_int();
  }
  if (a.is_string() && b.is_string()) return a.str() < b.str();  // UTF-8 order is code point order
  if (a.is_list() && b.is_list() && a.is_tuple() == b.is_tuple()) {
    size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
      Value x = a.at(i), y = b.at(i);
      if (!EqualAt(x, y, depth + 1)) return LessAt(x, y, depth + 1);
    }
    return a.size() < b.size();
  }
  throw ValueError(std::string("'<' not supported between instances of '") + TypeName(a) + "' and '" +
                   TypeName(b) + "'");
}

}  // namespace

}  // namespace triton_studio::chat::detail
