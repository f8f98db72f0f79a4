// jinja2's filters over sequences and mappings: length, join, first/last, list, items,
// dictsort, sort, reverse, unique, min/max, sum, map, select/reject(attr), attr and batch.
#include <algorithm>
#include <cstdlib>

#include "filters.h"
#include "pystr.h"
#include "utf8.h"

namespace triton_studio::chat::detail::filters {

namespace {

// jinja2's attribute paths for sort/map/selectattr...: "a.b", numeric parts index lists.
Value GetPath(Runtime& rt, const Value& item, std::string_view path) {
  Value cur = item;
  size_t pos = 0;
  while (true) {
    size_t dot = path.find('.', pos);
    std::string_view part = path.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (cur.is_undefined()) return cur;
    cur = numeric ? rt.GetItem(cur, Value::Int(std::atoll(std::string(part).c_str())), rt.line())
                  : rt.GetItem(cur, Value::String(std::string(part)), rt.line());
    if (dot == std::string_view::npos) return cur;
    pos = dot + 1;
  }
}

// The sort key: strings lower-cased unless case_sensitive.
Value SortKey(const Value& v, bool case_sensitive) {
  if (!case_sensitive && v.is_string()) return Value::String(PyLower(v.str()));
  return v;
}

}  // namespace

Value Length(Runtime&, const Value& v, CallArgs&) {
  if (v.is_undefined()) return Value::Int(0);
  if (v.is_string()) return Value::Int(static_cast<int64_t>(CodePointCount(v.str())));
  if ((v.is_list() && !v.is_generator()) || v.is_dict()) return Value::Int(static_cast<int64_t>(v.size()));
  throw ValueError(std::string("object of type '") + TypeName(v) + "' has no len()");
}

Value Join(Runtime& rt, const Value& v, CallArgs& a) {
  std::string sep = ArgStr(a, 0, "d", "");
  auto attr = Arg(a, 1, "attribute");
  std::string out;
  bool first = true;
  for (const auto& item : Items(v)) {
    if (!first) out += sep;
    first = false;
    AppendStr(out, attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item);
    rt.CheckOutput(out.size());
  }
  return Value::String(out);
}

Value First(Runtime&, const Value& v, CallArgs&) {
  if (v.is_generator()) {  // next(iter(gen)): takes one item only
    const ListObject* g = ValueAccess::list(v);
    return g->consumed < g->items.size() ? g->items[g->consumed++] : Value();
  }
  auto items = Items(v);
  return items.empty() ? Value() : items.front();
}

Value Last(Runtime&, const Value& v, CallArgs&) {
  if (v.is_generator()) throw ValueError("'generator' object is not reversible");
  auto items = Items(v);
  return items.empty() ? Value() : items.back();
}

Value ToList(Runtime&, const Value& v, CallArgs&) { return Value::List(Items(v)); }

Value Count(Runtime& rt, const Value& v, CallArgs& a) { return Length(rt, v, a); }

Value ItemsFilter(Runtime&, const Value& v, CallArgs&) {
  if (v.is_undefined()) return Value::Generator({});
  if (!v.is_dict()) throw ValueError("Can only get item pairs from a mapping.");
  std::vector<Value> out;
  v.ForEachEntry([&](const Value& k, const Value& item) { out.push_back(Value::List({k, item}, true)); });
  return Value::Generator(std::move(out));
}

Value DictSort(Runtime&, const Value& v, CallArgs& a) {
  if (!v.is_dict()) throw ValueError("dictsort: a mapping is required");
  bool cs = ArgBool(a, 0, "case_sensitive", false);
  std::string by = ArgStr(a, 1, "by", "key");
  bool reverse = ArgBool(a, 2, "reverse", false);
  int pos = by == "key" ? 0 : by == "value" ? 1 : -1;
  if (pos < 0) throw ValueError("You can only sort by either \"key\" or \"value\"");
  std::vector<Value> out;
  v.ForEachEntry([&](const Value& k, const Value& item) { out.push_back(Value::List({k, item}, true)); });
  std::stable_sort(out.begin(), out.end(), [&](const Value& x, const Value& y) {
    Value kx = SortKey(x.at(pos), cs), ky = SortKey(y.at(pos), cs);
    return reverse ? Less(ky, kx) : Less(kx, ky);
  });
  return Value::List(std::move(out));
}

Value Sort(Runtime& rt, const Value& v, CallArgs& a) {
  bool reverse = ArgBool(a, 0, "reverse", false);
  bool cs = ArgBool(a, 1, "case_sensitive", false);
  auto attr = Arg(a, 2, "attribute");
  std::vector<Value> items = Items(v);
  std::vector<std::pair<Value, Value>> keyed;
  for (auto& item : items) {
    Value key = attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item;
    keyed.emplace_back(SortKey(key, cs), item);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? Less(y.first, x.first) : Less(x.first, y.first);
  });
  std::vector<Value> out;
  for (auto& [k, item] : keyed) out.push_back(item);
  return Value::List(std::move(out));
}

Value Reverse(Runtime&, const Value& v, CallArgs&) {
  if (v.is_string()) {
    auto chars = Iterate(v);
    std::string out;
    for (auto it = chars.rbegin(); it != chars.rend(); ++it) out += it->str();
    return Value::String(out);
  }
  auto items = Items(v);
  std::reverse(items.begin(), items.end());
  return Value::Generator(std::move(items));
}

Value Unique(Runtime& rt, const Value& v, CallArgs& a) {
  bool cs = ArgBool(a, 0, "case_sensitive", false);
  auto attr = Arg(a, 1, "attribute");
  std::vector<Value> seen, out;
  for (auto& item : Items(v)) {
    Value key = SortKey(attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item, cs);
    if (key.is_list() && !key.is_tuple()) throw ValueError("unhashable type: 'list'");
    if (key.is_dict()) throw ValueError("unhashable type: 'dict'");
    bool dup = false;
    for (const auto& s : seen) {
      if (Equal(s, key)) {
        dup = true;
        break;
      }
    }
    if (dup) continue;
    seen.push_back(key);
    out.push_back(item);
  }
  return Value::Generator(std::move(out));
}

namespace {

Value MinMax(Runtime& rt, const Value& v, CallArgs& a, bool max) {
  bool cs = ArgBool(a, 0, "case_sensitive", false);
  auto attr = Arg(a, 1, "attribute");
  auto items = Items(v);
  if (items.empty()) return Value();
  Value best = items[0];
  Value best_key = SortKey(attr && !attr->is_none() ? GetPath(rt, best, ToStr(*attr)) : best, cs);
  for (size_t i = 1; i < items.size(); ++i) {
    Value key = SortKey(attr && !attr->is_none() ? GetPath(rt, items[i], ToStr(*attr)) : items[i], cs);
    if (max ? Less(best_key, key) : Less(key, best_key)) {
      best = items[i];
      best_key = key;
    }
  }
  return best;
}

}  // namespace
Value Max(Runtime& rt, const Value& v, CallArgs& a) { return MinMax(rt, v, a, true); }
Value Min(Runtime& rt, const Value& v, CallArgs& a) { return MinMax(rt, v, a, false); }

Value Sum(Runtime& rt, const Value& v, CallArgs& a) {
  auto attr = Arg(a, 0, "attribute");
  Value total = Arg(a, 1, "start").value_or(Value::Int(0));
  for (auto& item : Items(v)) {
    Value x = attr && !attr->is_none() ? GetPath(rt, item, ToStr(*attr)) : item;
    if (!x.is_number() || !total.is_number()) throw ValueError("sum: numbers are required");
    if (x.type() == Type::Float || total.type() == Type::Float) {
      total = Value::Float(total.as_double() + x.as_double());
    } else {
      int64_t sum;
      if (__builtin_add_overflow(total.as_int(), x.as_int(), &sum)) throw UnsupportedConstructError("integers beyond 64 bits", 0, 0);
      total = Value::Int(sum);
    }
  }
  return total;
}

Value Map(Runtime& rt, const Value& v, CallArgs& a) {
  std::vector<Value> out;
  if (!Truthy(v)) return Value::Generator({});  // jinja2 iterates only a truthy value
  auto attr = a.Get(SIZE_MAX, "attribute");
  if (attr) {
    auto def = a.Get(SIZE_MAX, "default");
    for (auto& item : Items(v)) {
      Value x = GetPath(rt, item, ToStr(*attr));
      out.push_back(x.is_undefined() && def ? *def : x);
    }
    return Value::Generator(std::move(out));
  }
  if (a.positional.empty()) throw ValueError("map requires a filter argument");
  std::string name = ToStr(a.positional[0]);
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keyword = a.keyword;
  for (auto& item : Items(v)) {
    CallArgs copy = rest;
    out.push_back(rt.ApplyFilterByName(name, item, copy, rt.line()));
  }
  return Value::Generator(std::move(out));
}

namespace {

Value SelectOrReject(Runtime& rt, const Value& v, CallArgs& a, bool attr_mode, bool select) {
  size_t first = 0;
  std::string attr;
  if (attr_mode) {
    if (a.positional.empty()) throw ValueError("selectattr/rejectattr need an attribute name");
    attr = ToStr(a.positional[0]);
    first = 1;
  }
  std::optional<std::string> test;
  if (a.positional.size() > first) test = ToStr(a.positional[first]);
  CallArgs rest;
  if (a.positional.size() > first + 1) rest.positional.assign(a.positional.begin() + first + 1, a.positional.end());
  rest.keyword = a.keyword;
  std::vector<Value> out;
  if (!Truthy(v)) return Value::Generator({});  // jinja2 iterates only a truthy value
  for (auto& item : Items(v)) {
    Value subject = attr_mode ? GetPath(rt, item, attr) : item;
    bool r;
    if (test) {
      CallArgs copy = rest;
      r = rt.ApplyTestByName(*test, subject, copy, rt.line());
    } else {
      r = Truthy(subject);
    }
    if (r == select) out.push_back(item);
  }
  return Value::Generator(std::move(out));
}

}  // namespace
Value Select(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, false, true); }
Value Reject(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, false, false); }
Value SelectAttr(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, true, true); }
Value RejectAttr(Runtime& rt, const Value& v, CallArgs& a) { return SelectOrReject(rt, v, a, true, false); }

Value Attr(Runtime& rt, const Value& v, CallArgs& a) {
  return rt.GetAttr(v, ArgStr(a, 0, "name", ""), rt.line());
}

Value Batch(Runtime&, const Value& v, CallArgs& a) {
  int64_t n = Arg(a, 0, "linecount").value_or(Value::Int(1)).as_int();
  if (n <= 0) throw ValueError("batch: linecount must be positive");
  auto fill = Arg(a, 1, "fill_with");
  std::vector<Value> out, cur;
  for (auto& item : Items(v)) {
    cur.push_back(item);
    if (static_cast<int64_t>(cur.size()) == n) {
      out.push_back(Value::List(std::move(cur)));
      cur.clear();
    }
  }
  if (!cur.empty()) {
    if (fill && !fill->is_none()) {
      while (static_cast<int64_t>(cur.size()) < n) cur.push_back(*fill);
    }
    out.push_back(Value::List(std::move(cur)));
  }
  return Value::Generator(std::move(out));
}

}  // namespace triton_studio::chat::detail::filters
