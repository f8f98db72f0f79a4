// The globals transformers' environment gives templates: jinja2's range, dict, namespace, cycler,
// joiner, and transformers' raise_exception and strftime_now.
#include <chrono>
#include <ctime>

#include "builtins.h"
#include "objects.h"
#include "runtime.h"

namespace triton_studio::chat::detail {

namespace {

Value Range(Runtime& rt, CallArgs& a, int) {
  if (!a.keyword.empty()) throw ValueError("range() takes no keyword arguments");
  for (const auto& v : a.positional) {
    if (v.type() != Type::Int && v.type() != Type::Bool) {
      throw ValueError(std::string("'") + TypeName(v) + "' object cannot be interpreted as an integer");
    }
  }
  int64_t start = 0, stop = 0, step = 1;
  if (a.positional.size() == 1) {
    stop = a.positional[0].as_int();
  } else if (a.positional.size() == 2 || a.positional.size() == 3) {
    start = a.positional[0].as_int();
    stop = a.positional[1].as_int();
    if (a.positional.size() == 3) step = a.positional[2].as_int();
  } else {
    throw ValueError("range expected 1 to 3 arguments");
  }
  if (step == 0) throw ValueError("range() arg 3 must not be zero");
  std::vector<Value> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop;) {
    rt.Step();
    out.push_back(Value::Int(i));
    if (__builtin_add_overflow(i, step, &i)) break;  // past the int64 range: beyond stop too
  }
  return Value::List(std::move(out));
}

void CollectItems(const CallArgs& a, DictObject& into, bool namespace_names) {
  if (a.positional.size() > 1) throw ValueError("expected at most 1 positional argument");
  auto put = [&](std::string_view k, const Value& v) {
    if (namespace_names && !k.empty() && k[0] == '_') {
      throw ValueError("Chat templates cannot store underscore-prefixed attributes on a namespace, but got '" +
                       std::string(k) + "'. Please rename the attribute.");
    }
    into.Set(k, v);
  };
  if (!a.positional.empty()) {
    const Value& src = a.positional[0];
    if (src.is_dict()) {
      src.ForEachEntry([&](const Value& k, const Value& v) { put(k.str(), v); });
    } else {
      for (const auto& pair : Iterate(src)) {
        if (!pair.is_list() || pair.size() != 2 || !pair.at(0).is_string()) {
          throw ValueError("dictionary update sequence elements must be (str, value) pairs");
        }
        put(pair.at(0).str(), pair.at(1));
      }
    }
  }
  for (const auto& [k, v] : a.keyword) put(k, v);
}

Value Dict(Runtime&, CallArgs& a, int) {
  auto d = std::make_shared<DictObject>();
  CollectItems(a, *d, false);
  return Value::Dict(std::move(d));
}

Value Namespace(Runtime&, CallArgs& a, int) {
  auto ns = std::make_shared<NamespaceObject>();
  CollectItems(a, ns->attrs, true);
  return Value::Obj(std::move(ns));
}

Value RaiseException(Runtime&, CallArgs& a, int) {
  auto msg = a.Get(0, "message");
  throw TemplateRaisedError(msg ? ToStr(*msg) : std::string());
}

Value StrftimeNow(Runtime& rt, CallArgs& a, int) {
  auto fmt = a.Get(0, "format");
  if (!fmt || !fmt->is_string()) throw ValueError("strftime_now() argument must be str");
  std::time_t now = rt.options().now ? rt.options().now()
                                     : std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  localtime_r(&now, &tm);
  std::string f(fmt->str());
  if (f.empty()) return Value::String("");
  std::string buf(256 + f.size() * 8, '\0');
  size_t n = std::strftime(buf.data(), buf.size(), f.c_str(), &tm);
  if (n == 0) throw ValueError("strftime_now: the format produced no text or is too long");
  buf.resize(n);
  return Value::String(buf);
}

struct CyclerObject : CallableObject {
  std::vector<Value> items;
  size_t pos = 0;
  const char* TypeName() const override { return "Cycler"; }
  std::optional<Value> GetAttr(std::string_view name) const override {
    if (name == "current") return items[pos];
    return std::nullopt;
  }
  std::optional<Value> CallMethod(Runtime&, std::string_view name, CallArgs&, int) override {
    if (name == "next") {
      Value v = items[pos];
      pos = (pos + 1) % items.size();
      return v;
    }
    if (name == "reset") {
      pos = 0;
      return Value::None();
    }
    return std::nullopt;
  }
};

Value Cycler(Runtime&, CallArgs& a, int) {
  if (a.positional.empty()) throw ValueError("at least one item has to be provided");
  auto c = std::make_shared<CyclerObject>();
  c->items = a.positional;
  return Value::Obj(std::move(c));
}

struct JoinerObject : CallableObject {
  std::string sep;
  bool used = false;
  const char* TypeName() const override { return "Joiner"; }
  bool Callable() const override { return true; }
  Value Call(Runtime&, CallArgs&, int) override {
    if (!used) {
      used = true;
      return Value::String("");
    }
    return Value::String(sep);
  }
};

Value Joiner(Runtime&, CallArgs& a, int) {
  auto j = std::make_shared<JoinerObject>();
  auto sep = a.Get(0, "sep");
  j->sep = sep ? ToStr(*sep) : ", ";
  return Value::Obj(std::move(j));
}

Value Lipsum(Runtime&, CallArgs&, int line) { throw UnsupportedConstructError("global 'lipsum'", line, 0); }

struct Global {
  const char* name;
  BuiltinImpl fn;
};
const Global kGlobals[] = {
    {"range", Range},   {"dict", Dict},     {"namespace", Namespace}, {"raise_exception", RaiseException},
    {"strftime_now", StrftimeNow}, {"cycler", Cycler}, {"joiner", Joiner}, {"lipsum", Lipsum},
};

}  // namespace

std::optional<Value> FindGlobal(std::string_view name) {
  // Built once: the objects are stateless, so renders share them.
  static const std::vector<std::pair<std::string_view, Value>> table = [] {
    std::vector<std::pair<std::string_view, Value>> t;
    for (const auto& g : kGlobals) t.emplace_back(g.name, Value::Obj(std::make_shared<BuiltinFunction>(g.name, g.fn)));
    return t;
  }();
  for (const auto& [k, v] : table) {
    if (k == name) return v;
  }
  return std::nullopt;
}

}  // namespace triton_studio::chat::detail
