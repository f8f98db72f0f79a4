// The value model's objects and accessors (see value.h): strings, lists, tuples, generators,
// dicts borrowed from the request's JSON or built by the template, call arguments, iteration.
// Python's comparisons are in compare.cc, str()/repr() in str_repr.cc, json.dumps in json_dumps.cc.
#include "value.h"

#include <cmath>

#include "utf8.h"

namespace triton_studio::chat::detail {

namespace {

constexpr int kMaxNesting = 512;  // deeper data is an error, never a stack overflow

}  // namespace

void CheckNesting(int depth) {
  if (depth > kMaxNesting) throw ValueError("data nested too deeply (more than 512 levels)");
}

const Value* DictObject::Find(std::string_view key) const {
  for (const auto& [k, v] : items) {
    if (k == key) return &v;
  }
  return nullptr;
}

void DictObject::Set(std::string_view key, Value value) {
  for (auto& [k, v] : items) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items.emplace_back(std::string(key), std::move(value));
}

std::optional<Value> CallableObject::GetAttr(std::string_view) const { return std::nullopt; }

Value CallableObject::Call(Runtime&, CallArgs&, int) {
  throw ValueError(std::string("'") + TypeName() + "' object is not callable");
}

std::optional<Value> CallableObject::CallMethod(Runtime&, std::string_view, CallArgs&, int) {
  return std::nullopt;
}

std::string CallableObject::Repr() const { return std::string("<") + TypeName() + " object>"; }

Value Value::String(std::string s) {
  auto o = std::make_shared<StringObject>(std::move(s));
  Value v(Type::String);
  v.s_ = &o->s;
  v.obj_ = std::move(o);
  return v;
}

Value Value::FromJson(const Json* j, std::shared_ptr<Object> owner) {
  switch (j->type()) {
    case Json::value_t::null:
      return None();
    case Json::value_t::boolean:
      return Bool(j->get<bool>());
    case Json::value_t::number_integer:
      return Int(j->get<int64_t>());
    case Json::value_t::number_unsigned:
      return Int(static_cast<int64_t>(j->get<uint64_t>()));
    case Json::value_t::number_float:
      return Float(j->get<double>());
    case Json::value_t::string:
      return StringRef(&j->get_ref<const std::string&>(), std::move(owner));
    case Json::value_t::array:
    case Json::value_t::object: {
      Value v(j->is_array() ? Type::List : Type::Dict);
      v.json_ = true;
      v.j_ = j;
      v.obj_ = std::move(owner);
      return v;
    }
    default:
      return Value();
  }
}

Value Value::List(std::vector<Value> items, bool tuple) {
  auto o = std::make_shared<ListObject>();
  o->items = std::move(items);
  o->tuple = tuple;
  Value v(Type::List);
  v.obj_ = std::move(o);
  return v;
}

Value Value::Generator(std::vector<Value> items) {
  Value v = List(std::move(items));
  std::static_pointer_cast<ListObject>(v.obj_)->generator = true;
  return v;
}

Value Value::DictView(std::vector<Value> items, const char* view) {
  Value v = List(std::move(items));
  std::static_pointer_cast<ListObject>(v.obj_)->view = view;
  return v;
}

const char* Value::view() const {
  return type_ == Type::List && !json_ ? static_cast<const ListObject*>(obj_.get())->view : nullptr;
}

bool Value::is_generator() const {
  return type_ == Type::List && !json_ && static_cast<const ListObject*>(obj_.get())->generator;
}

Value Value::Dict(std::shared_ptr<DictObject> d) {
  Value v(Type::Dict);
  v.obj_ = std::move(d);
  return v;
}

bool Value::is_tuple() const {
  return type_ == Type::List && !json_ && static_cast<const ListObject*>(obj_.get())->tuple;
}

size_t Value::size() const {
  if (json_) return j_->size();
  if (type_ == Type::List) return static_cast<const ListObject*>(obj_.get())->items.size();
  if (type_ == Type::Dict) return static_cast<const DictObject*>(obj_.get())->items.size();
  return 0;
}

Value Value::at(size_t i) const {
  if (json_) return FromJson(&(*j_)[i], obj_);
  return static_cast<const ListObject*>(obj_.get())->items[i];
}

std::optional<Value> Value::get(std::string_view key) const {
  if (json_) {
    for (const auto& [k, item] : j_->get_ref<const Json::object_t&>()) {
      if (k == key) return FromJson(&item, obj_);
    }
    return std::nullopt;
  }
  const Value* found = static_cast<const DictObject*>(obj_.get())->Find(key);
  if (found) return *found;
  return std::nullopt;
}

bool Value::same_identity(const Value& o) const {
  if (type_ != o.type_) return false;
  if (json_ || o.json_) return json_ == o.json_ && j_ == o.j_;
  return obj_ == o.obj_;
}

std::optional<Value> CallArgs::Get(size_t index, std::string_view name) const {
  if (index < positional.size()) return positional[index];
  for (const auto& [k, v] : keyword) {
    if (k == name) return v;
  }
  return std::nullopt;
}

int64_t FloatToInt(double d) {
  if (std::isnan(d)) throw ValueError("cannot convert float NaN to integer");
  if (std::isinf(d)) throw ValueError("cannot convert float infinity to integer");
  double t = std::trunc(d);
  if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) {
    throw UnsupportedConstructError("integers beyond 64 bits", 0, 0);
  }
  return static_cast<int64_t>(t);
}

const char* TypeName(const Value& v) {
  switch (v.type()) {
    case Type::Undefined:
      return "Undefined";
    case Type::None:
      return "NoneType";
    case Type::Bool:
      return "bool";
    case Type::Int:
      return "int";
    case Type::Float:
      return "float";
    case Type::String:
      return "str";
    case Type::List:
      return v.is_generator() ? "generator" : v.view() ? v.view() : v.is_tuple() ? "tuple" : "list";
    case Type::Dict:
      return "dict";
    case Type::Object:
      return v.object()->TypeName();
  }
  return "object";
}

std::vector<Value> Iterate(const Value& v) {
  std::vector<Value> out;
  switch (v.type()) {
    case Type::Undefined:
      return out;
    case Type::List:
      if (v.is_generator()) {
        const ListObject* g = ValueAccess::list(v);
        out.assign(g->items.begin() + static_cast<std::ptrdiff_t>(g->consumed), g->items.end());
        g->consumed = g->items.size();
        return out;
      }
      out.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) out.push_back(v.at(i));
      return out;
    case Type::Dict:
      v.ForEachEntry([&](const Value& k, const Value&) { out.push_back(k); });
      return out;
    case Type::String: {
      std::string_view s = v.str();
      size_t i = 0;
      while (i < s.size()) {
        size_t start = i;
        DecodeUtf8(s, i);
        out.push_back(Value::String(std::string(s.substr(start, i - start))));
      }
      return out;
    }
    default:
      throw ValueError(std::string("'") + TypeName(v) + "' object is not iterable");
  }
}

}  // namespace triton_studio::chat::detail
