// The interpreter's core (see runtime.h): jinja2's scoping (a fresh scope per loop iteration,
// macros see their defining scope), variables, output capture and the render limits. Statements
// are in statements.cc, expressions in expressions.cc, operators in operators.cc.
#include "runtime.h"

#include "builtins.h"
#include "objects.h"

namespace triton_studio::chat::detail {

struct Frame {
  std::vector<std::pair<std::string_view, Value>> vars;
  int parent;
  int previous;
};

Runtime::Runtime(const ChatTemplateOptions& options, std::string& out) : options_(options), out_(&out) {
  frames_.reserve(16);
  frames_.push_back(Frame{{}, -1, -1});
  current_ = 0;
}

Runtime::~Runtime() = default;

void Runtime::SetVariable(std::string_view name, Value value) {
  auto& vars = frames_[0].vars;
  for (auto& [k, v] : vars) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  vars.emplace_back(name, std::move(value));
}

void Runtime::Render(const Template& tmpl) {
  try {
    Exec(tmpl.body);
  } catch (const ValueError& e) {
    Fail(e.what(), line_);
  }
}

void Runtime::Fail(const std::string& message, int line) const { throw TemplateRuntimeError(message, line); }

void Runtime::Step() {
  if (++steps_ > options_.limits.max_steps) {
    throw RenderLimitError("render stopped: more than max_steps (" + std::to_string(options_.limits.max_steps) +
                           ") evaluation steps; the template loops too long for its input");
  }
}

void Runtime::CheckOutput(size_t size) const {
  if (size > options_.limits.max_output_bytes) {
    throw RenderLimitError("render stopped: output exceeds max_output_bytes (" +
                           std::to_string(options_.limits.max_output_bytes) + ")");
  }
}

void Runtime::PushFrame(int parent) {
  frames_.push_back(Frame{{}, parent, current_});
  current_ = static_cast<int>(frames_.size()) - 1;
}

void Runtime::PopFrame() {
  current_ = frames_.back().previous;
  frames_.pop_back();
}

Value Runtime::Lookup(std::string_view name) {
  for (int f = current_; f >= 0; f = frames_[f].parent) {
    for (auto it = frames_[f].vars.rbegin(); it != frames_[f].vars.rend(); ++it) {
      if (it->first == name) return it->second;
    }
  }
  if (auto g = FindGlobal(name)) return *g;
  return Value();
}

void Runtime::Assign(std::string_view name, Value value) {
  auto& vars = frames_[current_].vars;
  for (auto& [k, v] : vars) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  vars.emplace_back(name, std::move(value));
}

std::string Runtime::Capture(const Body& body) {
  std::string captured;
  std::string* saved = out_;
  out_ = &captured;
  try {
    Exec(body);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return captured;
}

void Runtime::RunMacro(const MacroObject& macro, CallArgs& args, std::string& out, int line) {
  const auto& params = *macro.params;
  std::vector<Value> values(params.size());
  std::vector<bool> given(params.size(), false);
  std::vector<Value> varargs;
  auto kwargs = std::make_shared<DictObject>();
  Value caller;
  for (size_t i = 0; i < args.positional.size(); ++i) {
    if (i < params.size()) {
      values[i] = args.positional[i];
      given[i] = true;
    } else {
      varargs.push_back(args.positional[i]);
    }
  }
  for (auto& [k, v] : args.keyword) {
    if (k == "caller" && !macro.is_caller) {
      caller = v;
      continue;
    }
    bool found = false;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].first == k) {
        if (given[i]) Fail("macro '" + macro.name + "' got multiple values for argument '" + k + "'", line);
        values[i] = v;
        given[i] = true;
        found = true;
      }
    }
    if (!found) kwargs->Set(k, v);
  }
  std::string* saved = out_;
  out_ = &out;
  PushFrame(macro.def_frame < static_cast<int>(frames_.size()) ? macro.def_frame : 0);
  try {
    for (size_t i = 0; i < params.size(); ++i) {
      if (!given[i] && params[i].second) values[i] = Eval(*params[i].second);
      Assign(params[i].first, values[i]);
    }
    Assign("varargs", Value::List(std::move(varargs), /*tuple=*/true));
    Assign("kwargs", Value::Dict(kwargs));
    if (!caller.is_undefined()) Assign("caller", caller);
    Exec(*macro.body);
  } catch (...) {
    PopFrame();
    out_ = saved;
    throw;
  }
  PopFrame();
  out_ = saved;
}

}  // namespace triton_studio::chat::detail
