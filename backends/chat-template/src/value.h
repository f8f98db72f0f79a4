// The engine's value model: Python's values as jinja2 templates see them (None, bool, int, float,
// str, list/tuple, dict, Undefined, and objects such as namespaces, macros and loops). Values
// from the request's JSON are borrowed, not copied: a render reads messages in place.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triton_studio/chat_template.h"

namespace triton_studio::chat::detail {

class Runtime;
class Value;
struct CallArgs;

enum class Type : uint8_t { Undefined, None, Bool, Int, Float, String, List, Dict, Object };

// Base of everything a Value owns (strings, lists, dicts, objects).
struct Object {
  virtual ~Object() = default;
};

struct StringObject : Object {
  explicit StringObject(std::string text) : s(std::move(text)) {}
  std::string s;
};

struct ListObject : Object {
  std::vector<Value> items;
  bool tuple = false;
  // A Python generator/iterator (what map, select, reverse... return in jinja2): iterable once
  // (items before `consumed` are gone), always truthy, without len() or indexing. Generators
  // live in one render, so the cursor is plain mutable state.
  bool generator = false;
  mutable size_t consumed = 0;
  // A dict view (what dict.keys()/values()/items() return): "dict_keys"…; iterable with len(),
  // not indexable, not JSON.
  const char* view = nullptr;
};

struct DictObject : Object {
  std::vector<std::pair<std::string, Value>> items;  // insertion order, as Python dicts
  const Value* Find(std::string_view key) const;
  void Set(std::string_view key, Value value);
};

// Objects with attributes and/or a call operator (namespace, macro, loop, cycler, builtins).
struct CallableObject : Object {
  virtual const char* TypeName() const = 0;
  virtual std::optional<Value> GetAttr(std::string_view name) const;
  virtual bool Callable() const { return false; }
  virtual Value Call(Runtime& rt, CallArgs& args, int line);
  // `obj.name(args)`; nullopt when the object has no such method.
  virtual std::optional<Value> CallMethod(Runtime& rt, std::string_view name, CallArgs& args, int line);
  virtual std::string Repr() const;
};

class Value {
 public:
  Value() = default;  // Undefined
  static Value None() { return Value(Type::None); }
  static Value Bool(bool b) {
    Value v(Type::Bool);
    v.b_ = b;
    return v;
  }
  static Value Int(int64_t i) {
    Value v(Type::Int);
    v.i_ = i;
    return v;
  }
  static Value Float(double f) {
    Value v(Type::Float);
    v.f_ = f;
    return v;
  }
  static Value String(std::string s);
  // A string owned elsewhere; `owner` (may be null) keeps it alive.
  static Value StringRef(const std::string* s, std::shared_ptr<Object> owner = nullptr) {
    Value v(Type::String);
    v.s_ = s;
    v.obj_ = std::move(owner);
    return v;
  }
  // A JSON node owned elsewhere (the request, the config); scalars are converted, containers borrowed.
  static Value FromJson(const Json* j, std::shared_ptr<Object> owner = nullptr);
  static Value List(std::vector<Value> items, bool tuple = false);
  static Value Generator(std::vector<Value> items);
  static Value DictView(std::vector<Value> items, const char* view);
  static Value Dict(std::shared_ptr<DictObject> d);
  static Value Obj(std::shared_ptr<CallableObject> o) {
    Value v(Type::Object);
    v.obj_ = std::move(o);
    return v;
  }

  Type type() const { return type_; }
  bool is_undefined() const { return type_ == Type::Undefined; }
  bool is_none() const { return type_ == Type::None; }
  bool is_string() const { return type_ == Type::String; }
  bool is_list() const { return type_ == Type::List; }
  bool is_dict() const { return type_ == Type::Dict; }
  bool is_number() const { return type_ == Type::Int || type_ == Type::Float || type_ == Type::Bool; }
  bool as_bool() const { return b_; }
  int64_t as_int() const { return type_ == Type::Bool ? (b_ ? 1 : 0) : i_; }
  double as_double() const { return type_ == Type::Float ? f_ : static_cast<double>(as_int()); }
  std::string_view str() const { return *s_; }
  bool is_tuple() const;
  bool is_generator() const;
  const char* view() const;  // the dict view's type name, or nullptr
  CallableObject* object() const { return static_cast<CallableObject*>(obj_.get()); }

  // Lists: length and items. Dicts: length, lookup and entries in order.
  size_t size() const;
  Value at(size_t i) const;
  std::optional<Value> get(std::string_view key) const;
  template <typename F>
  void ForEachEntry(F&& f) const;  // f(Value key, Value value)

  bool same_identity(const Value& o) const;

 private:
  explicit Value(Type t) : type_(t) {}
  Type type_ = Type::Undefined;
  bool json_ = false;  // List/Dict borrowed from JSON (j_) rather than owned (obj_)
  union {
    bool b_;
    int64_t i_ = 0;
    double f_;
    const Json* j_;
    const std::string* s_;
  };
  std::shared_ptr<Object> obj_;  // the owned object, or the owner of borrowed data

  friend struct ValueAccess;
};

struct ValueAccess {
  static const Json* json(const Value& v) { return v.json_ ? v.j_ : nullptr; }
  static const ListObject* list(const Value& v) { return static_cast<const ListObject*>(v.obj_.get()); }
  static const DictObject* dict(const Value& v) { return static_cast<const DictObject*>(v.obj_.get()); }
  static const std::shared_ptr<Object>& owner(const Value& v) { return v.obj_; }
};

template <typename F>
void Value::ForEachEntry(F&& f) const {
  if (json_) {
    for (const auto& [k, item] : j_->get_ref<const Json::object_t&>()) {
      f(Value::StringRef(&k, obj_), Value::FromJson(&item, obj_));
    }
    return;
  }
  auto d = std::static_pointer_cast<DictObject>(obj_);
  for (const auto& [k, item] : d->items) f(Value::StringRef(&k, d), item);
}

// Positional and keyword arguments of a call, filter or test (after the subject).
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
  // The argument at `index` or named `name`, removing nothing; nullopt when absent.
  std::optional<Value> Get(size_t index, std::string_view name) const;
};

// Python semantics over values (errors are thrown as TemplateRuntimeError by the callers that
// know the line: these throw ValueError with the message).
struct ValueError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Recursion over data (==, <, repr, json.dumps) stops with a ValueError past 512 levels rather
// than overflow the stack.
void CheckNesting(int depth);

// Python's int(float): truncation; infinity and NaN are errors, past 64 bits unsupported.
int64_t FloatToInt(double d);

bool Truthy(const Value& v);
bool Equal(const Value& a, const Value& b);
// Python's a < b (numbers, strings, lists element-wise); throws ValueError on other mixes.
bool Less(const Value& a, const Value& b);
const char* TypeName(const Value& v);  // Python's type name: 'str', 'int', 'dict object'…
std::string ToStr(const Value& v);     // Python str(), Undefined as ""
void AppendStr(std::string& out, const Value& v);
std::string Repr(const Value& v);      // Python repr()
std::string FloatRepr(double d);       // Python repr(float): shortest round trip
// A list of the items of an iterable (list/tuple, dict keys, string characters); ValueError otherwise.
std::vector<Value> Iterate(const Value& v);
// JSON of a value as Python's json.dumps(ensure_ascii, indent, separators, sort_keys) writes it.
struct JsonDumpOptions {
  bool ensure_ascii = false;
  std::optional<std::string> indent;  // nullopt: one line
  std::string item_separator = ", ";
  std::string key_separator = ": ";
  bool sort_keys = false;
};
std::string JsonDumps(const Value& v, const JsonDumpOptions& options);

}  // namespace triton_studio::chat::detail
