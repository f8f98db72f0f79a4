// The objects templates create while rendering (see objects.h): macros, loop contexts and
// namespaces.
#include "objects.h"

#include "runtime.h"

namespace triton_studio::chat::detail {

Value MacroObject::Call(Runtime& rt, CallArgs& args, int line) {
  std::string out;
  rt.RunMacro(*this, args, out, line);
  return Value::String(std::move(out));
}

std::optional<Value> LoopObject::GetAttr(std::string_view name) const {
  size_t n = items.size();
  if (name == "index") return Value::Int(static_cast<int64_t>(index0 + 1));
  if (name == "index0") return Value::Int(static_cast<int64_t>(index0));
  if (name == "first") return Value::Bool(index0 == 0);
  if (name == "last") return Value::Bool(index0 + 1 == n);
  if (name == "length") return Value::Int(static_cast<int64_t>(n));
  if (name == "revindex") return Value::Int(static_cast<int64_t>(n - index0));
  if (name == "revindex0") return Value::Int(static_cast<int64_t>(n - index0 - 1));
  if (name == "depth") return Value::Int(static_cast<int64_t>(depth0 + 1));
  if (name == "depth0") return Value::Int(static_cast<int64_t>(depth0));
  if (name == "previtem") return index0 > 0 ? items[index0 - 1] : Value();
  if (name == "nextitem") return index0 + 1 < n ? items[index0 + 1] : Value();
  return std::nullopt;
}

Value LoopObject::Call(Runtime& rt, CallArgs& args, int line) {
  if (args.positional.size() != 1) throw ValueError("loop() takes exactly one argument");
  std::string out;
  std::string* saved = rt.out_;
  rt.out_ = &out;
  try {
    rt.ExecFor(*stmt, args.positional[0], static_cast<int>(depth0 + 1));
  } catch (...) {
    rt.out_ = saved;
    throw;
  }
  rt.out_ = saved;
  (void)line;
  return Value::String(std::move(out));
}

std::optional<Value> LoopObject::CallMethod(Runtime&, std::string_view name, CallArgs& args, int) {
  if (name == "cycle") {
    if (args.positional.empty()) throw ValueError("no items for cycling given");
    return args.positional[index0 % args.positional.size()];
  }
  if (name == "changed") {
    Value current = Value::List(args.positional);
    bool changed = !changed_seen || !Equal(current, last_changed);
    changed_seen = true;
    last_changed = current;
    return Value::Bool(changed);
  }
  return std::nullopt;
}

std::optional<Value> NamespaceObject::GetAttr(std::string_view name) const {
  if (const Value* v = attrs.Find(name)) return *v;
  return std::nullopt;
}

std::string NamespaceObject::Repr() const {
  auto d = std::make_shared<DictObject>(attrs);
  return "<Namespace " + ::triton_studio::chat::detail::Repr(Value::Dict(d)) + ">";
}

}  // namespace triton_studio::chat::detail
