// The statements of the interpreter: output, if, for (with loop filters, else and recursive
// loops), set, macro, call and filter blocks, with, break and continue.
#include "builtins.h"
#include "objects.h"
#include "runtime.h"

namespace triton_studio::chat::detail {

Runtime::Flow Runtime::Exec(const Body& body) {
  for (const auto& s : body) {
    Flow f = ExecStmt(*s);
    if (f != Flow::Normal) return f;
  }
  return Flow::Normal;
}

Runtime::Flow Runtime::ExecStmt(const Stmt& s) {
  Step();
  line_ = s.line;
  switch (s.kind) {
    case StmtKind::Output:
      out_->append(s.text);
      CheckOutput(out_->size());
      return Flow::Normal;
    case StmtKind::Print: {
      Value v = Eval(*s.expr);
      AppendStr(*out_, v);
      CheckOutput(out_->size());
      return Flow::Normal;
    }
    case StmtKind::If:
      for (const auto& [cond, body] : s.branches) {
        if (Truthy(Eval(*cond))) return Exec(body);
      }
      return Exec(s.body);
    case StmtKind::For: {
      Value iterable = Eval(*s.expr);
      ExecFor(s, iterable, 0);
      return Flow::Normal;
    }
    case StmtKind::Set:
      ExecSet(s);
      return Flow::Normal;
    case StmtKind::SetBlock: {
      Value v = Value::String(Capture(s.body));
      for (const auto& f : s.filters) v = EvalFilter(*f, v);
      Assign(s.targets[0], std::move(v));
      return Flow::Normal;
    }
    case StmtKind::Macro: {
      auto m = std::make_shared<MacroObject>();
      m->name = s.name;
      m->params = &s.params;
      m->body = &s.body;
      m->def_frame = current_;
      Assign(s.name, Value::Obj(std::move(m)));
      return Flow::Normal;
    }
    case StmtKind::CallBlock:
      ExecCallBlock(s);
      return Flow::Normal;
    case StmtKind::FilterBlock: {
      Value v = Value::String(Capture(s.body));
      for (const auto& f : s.filters) v = EvalFilter(*f, v);
      AppendStr(*out_, v);
      CheckOutput(out_->size());
      return Flow::Normal;
    }
    case StmtKind::With:
      return ExecWith(s);
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
  }
  return Flow::Normal;
}

// `{% set x = ... %}`, `{% set a, b = ... %}` and `{% set ns.attr = ... %}`.
void Runtime::ExecSet(const Stmt& s) {
  Value v = Eval(*s.expr);
  line_ = s.line;
  if (!s.target_object.empty()) {
    Value obj = Lookup(s.target_object);
    auto* ns = obj.type() == Type::Object ? dynamic_cast<NamespaceObject*>(obj.object()) : nullptr;
    if (!ns) Fail("cannot assign attribute on non-namespace object", s.line);
    if (!s.name.empty() && s.name[0] == '_') {
      Fail("Chat templates cannot store underscore-prefixed attributes on a namespace, but got '" + s.name + "'",
           s.line);
    }
    ns->attrs.Set(s.name, std::move(v));
  } else if (s.targets.size() == 1) {
    Assign(s.targets[0], std::move(v));
  } else {
    std::vector<Value> parts = Iterate(v);
    if (parts.size() != s.targets.size()) {
      Fail(parts.size() > s.targets.size() ? "too many values to unpack" : "not enough values to unpack", s.line);
    }
    for (size_t i = 0; i < parts.size(); ++i) Assign(s.targets[i], parts[i]);
  }
}

// `{% call macro(...) %}body{% endcall %}`: the body becomes the macro's `caller`.
void Runtime::ExecCallBlock(const Stmt& s) {
  auto caller = std::make_shared<MacroObject>();
  caller->name = "caller";
  caller->params = &s.params;
  caller->body = &s.body;
  caller->def_frame = current_;
  caller->is_caller = true;
  const Expr& call = *s.expr;
  CallArgs args;
  EvalArgs(call.args, args);
  args.keyword.emplace_back("caller", Value::Obj(std::move(caller)));
  Value callee = Eval(*call.a);
  Value result = CallValue(callee, args, s.line);
  AppendStr(*out_, result);
  CheckOutput(out_->size());
}

// `{% with a = ... %}`: a scope of its own for its assignments.
Runtime::Flow Runtime::ExecWith(const Stmt& s) {
  std::vector<Value> values;
  for (const auto& [name, expr] : s.assignments) values.push_back(Eval(*expr));
  PushFrame(current_);
  for (size_t i = 0; i < values.size(); ++i) Assign(s.assignments[i].first, values[i]);
  Flow f;
  try {
    f = Exec(s.body);
  } catch (...) {
    PopFrame();
    throw;
  }
  PopFrame();
  return f;
}

void Runtime::ExecFor(const Stmt& s, const Value& iterable, int depth) {
  if (iterable.is_none() || (!iterable.is_undefined() && !iterable.is_list() && !iterable.is_dict() &&
                             !iterable.is_string() && iterable.type() != Type::Object)) {
    Fail(std::string("'") + TypeName(iterable) + "' object is not iterable", s.line);
  }
  if (iterable.type() == Type::Object) Fail(std::string("'") + TypeName(iterable) + "' object is not iterable", s.line);
  std::vector<Value> items = Iterate(iterable);
  auto bind = [&](const Value& item) {
    if (s.targets.size() == 1) {
      Assign(s.targets[0], item);
      return;
    }
    std::vector<Value> parts = Iterate(item);
    if (parts.size() != s.targets.size()) {
      Fail(parts.size() > s.targets.size() ? "too many values to unpack (expected " +
                                                 std::to_string(s.targets.size()) + ")"
                                           : "not enough values to unpack (expected " +
                                                 std::to_string(s.targets.size()) + ", got " +
                                                 std::to_string(parts.size()) + ")",
           s.line);
    }
    for (size_t i = 0; i < parts.size(); ++i) Assign(s.targets[i], parts[i]);
  };
  if (s.loop_filter) {
    std::vector<Value> kept;
    for (const auto& item : items) {
      PushFrame(current_);
      try {
        bind(item);
        if (Truthy(Eval(*s.loop_filter))) kept.push_back(item);
      } catch (...) {
        PopFrame();
        throw;
      }
      PopFrame();
    }
    items = std::move(kept);
  }
  if (items.empty()) {
    Exec(s.else_body);
    return;
  }
  auto loop = std::make_shared<LoopObject>();
  loop->items = std::move(items);
  loop->depth0 = depth;
  loop->stmt = &s;
  Value loop_value = Value::Obj(loop);
  for (size_t i = 0; i < loop->items.size(); ++i) {
    Step();
    loop->index0 = i;
    PushFrame(current_);
    Flow f;
    try {
      Assign("loop", loop_value);
      bind(loop->items[i]);
      f = Exec(s.body);
    } catch (...) {
      PopFrame();
      throw;
    }
    PopFrame();
    if (f == Flow::Break) break;
  }
}
}  // namespace triton_studio::chat::detail
