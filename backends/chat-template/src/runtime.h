// The interpreter: renders a parsed Template with one request's variables, within RenderLimits.
// One Runtime per render; everything it creates dies with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ast.h"
#include "value.h"

namespace triton_studio::chat::detail {

struct Frame;
struct MacroObject;

// Names an expression for "'x' is undefined" messages.
std::string Describe(const Expr& e);

class Runtime {
 public:
  Runtime(const ChatTemplateOptions& options, std::string& out);
  ~Runtime();

  // Top-level variables of the render (messages, tools, ..., then kwargs overriding them).
  void SetVariable(std::string_view name, Value value);
  void Render(const Template& tmpl);

  // jinja2's getattr (`a.b`: attribute first, then item) and getitem (`a[b]`: item first).
  Value GetAttr(const Value& subject, std::string_view name, int line);
  Value GetItem(const Value& subject, const Value& key, int line);
  Value CallValue(const Value& callee, CallArgs& args, int line);
  Value ApplyFilterByName(std::string_view name, const Value& subject, CallArgs& args, int line);
  bool ApplyTestByName(std::string_view name, const Value& subject, CallArgs& args, int line);
  const ChatTemplateOptions& options() const { return options_; }
  int line() const { return line_; }
  void Step();  // counts one evaluation step against max_steps

  // Used by macros and loops.
  void RunMacro(const MacroObject& macro, CallArgs& args, std::string& out, int line);
  void CheckOutput(size_t size) const;

 private:
  enum class Flow { Normal, Break, Continue };
  Flow Exec(const Body& body);
  Flow ExecStmt(const Stmt& s);
  void ExecSet(const Stmt& s);
  void ExecCallBlock(const Stmt& s);
  Flow ExecWith(const Stmt& s);
  void ExecFor(const Stmt& s, const Value& iterable, int depth);
  Value Eval(const Expr& e);
  Value EvalSlice(const Expr& e);
  Value EvalDict(const Expr& e);
  Value EvalUnary(const Expr& e);
  Value EvalBinary(const Expr& e);
  // Python's arithmetic on two defined operands; `*` and `**` are Multiply and Power.
  Value Arithmetic(BinOp op, const Value& l, const Value& r, int line);
  Value Multiply(const Value& l, const Value& r, int line);
  Value Power(const Value& l, const Value& r, int line);
  [[noreturn]] void OperandTypeError(BinOp op, const Value& l, const Value& r, int line) const;
  bool EvalCompare(const Expr& e);
  Value EvalCall(const Expr& e);
  Value EvalFilter(const Expr& e, const Value& subject);
  void EvalArgs(const Arguments& a, CallArgs& out);
  Value Lookup(std::string_view name);
  void Assign(std::string_view name, Value value);
  void PushFrame(int parent);
  void PopFrame();
  std::string Capture(const Body& body);
  [[noreturn]] void Fail(const std::string& message, int line) const;

  const ChatTemplateOptions& options_;
  std::string* out_;
  std::vector<Frame> frames_;
  int current_ = -1;
  int line_ = 0;
  size_t steps_ = 0;
  size_t depth_ = 0;
  friend struct LoopObject;
  friend struct MacroObject;
};

}  // namespace triton_studio::chat::detail
