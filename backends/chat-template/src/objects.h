// The objects templates create while rendering: loops, macros, namespaces and builtin functions.
#pragma once

#include <string>
#include <vector>

#include "ast.h"
#include "value.h"

namespace triton_studio::chat::detail {

struct LoopObject : CallableObject {
  std::vector<Value> items;
  size_t index0 = 0;
  size_t depth0 = 0;
  const Stmt* stmt = nullptr;  // for recursive loops: loop(items)
  Value last_changed;
  bool changed_seen = false;
  const char* TypeName() const override { return "LoopContext"; }
  std::optional<Value> GetAttr(std::string_view name) const override;
  bool Callable() const override { return stmt && stmt->recursive; }
  Value Call(Runtime& rt, CallArgs& args, int line) override;
  std::optional<Value> CallMethod(Runtime& rt, std::string_view name, CallArgs& args, int line) override;
};

struct MacroObject : CallableObject {
  std::string name;
  const std::vector<std::pair<std::string, ExprPtr>>* params = nullptr;
  const Body* body = nullptr;
  int def_frame = 0;
  bool is_caller = false;
  Value caller;  // the caller of a {% call %} block
  const char* TypeName() const override { return "Macro"; }
  bool Callable() const override { return true; }
  Value Call(Runtime& rt, CallArgs& args, int line) override;
  std::string Repr() const override { return "<Macro '" + name + "'>"; }
};

struct NamespaceObject : CallableObject {
  DictObject attrs;
  const char* TypeName() const override { return "Namespace"; }
  std::optional<Value> GetAttr(std::string_view name) const override;
  std::string Repr() const override;
};

using BuiltinImpl = Value (*)(Runtime& rt, CallArgs& args, int line);
struct BuiltinFunction : CallableObject {
  BuiltinFunction(const char* n, BuiltinImpl f) : name(n), fn(f) {}
  const char* name;
  BuiltinImpl fn;
  const char* TypeName() const override { return "builtin_function_or_method"; }
  bool Callable() const override { return true; }
  Value Call(Runtime& rt, CallArgs& args, int line) override { return fn(rt, args, line); }
  std::string Repr() const override { return std::string("<built-in function ") + name + ">"; }
};

}  // namespace triton_studio::chat::detail
