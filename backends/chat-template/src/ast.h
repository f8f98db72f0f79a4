// The parsed template: expression and statement nodes. Built once per model load by the parser,
// read (never changed) by every render.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "value.h"

namespace triton_studio::chat::detail {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct FilterFn;
struct TestFn;

enum class ExprKind {
  Const, Name, Attr, Item, Slice, Call, Filter, Test, Neg, Pos, Not, Binary, Compare, And, Or, Cond, List, Tuple, Dict,
};

enum class BinOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Concat };
enum class CmpOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };

struct Arguments {
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> keyword;
};

struct Expr {
  ExprKind kind;
  int line = 0;
  int column = 0;
  // Const
  Value constant;
  // Name, Attr (attribute name), Filter/Test (name)
  std::string name;
  // Attr/Item/Slice/Call/Filter/Test/unary: the subject; Binary/And/Or: left; Cond: the value when true
  ExprPtr a;
  // Item: key; Binary/And/Or: right; Cond: condition; Slice: start
  ExprPtr b;
  // Cond: the value when false (may be null); Slice: stop
  ExprPtr c;
  // Slice: step
  ExprPtr d;
  BinOp bin_op = BinOp::Add;
  std::vector<std::pair<CmpOp, ExprPtr>> comparisons;  // Compare: a op0 x0 op1 x1 ...
  std::vector<ExprPtr> items;                           // List/Tuple, Dict keys
  std::vector<ExprPtr> values;                          // Dict values
  Arguments args;                                       // Call, Filter, Test
  const FilterFn* filter = nullptr;                     // Filter: resolved at parse time
  const TestFn* test = nullptr;                         // Test: resolved at parse time
  bool negated = false;                                 // Test: `is not`
};

enum class StmtKind { Output, Print, If, For, Set, SetBlock, Macro, CallBlock, FilterBlock, With, Break, Continue };

struct Stmt {
  StmtKind kind;
  int line = 0;
  std::string text;  // Output
  ExprPtr expr;      // Print, For (iterable), Set (value), CallBlock (the call)
  // If: (condition, body) per if/elif branch
  std::vector<std::pair<ExprPtr, Body>> branches;
  Body body;       // For/Macro/CallBlock/FilterBlock/With/SetBlock body; If: else
  Body else_body;  // For: else
  // For/Set targets: names (tuple unpacking when several); Set `ns.attr`: target_object + name
  std::vector<std::string> targets;
  std::string target_object;
  ExprPtr loop_filter;  // For: `if` clause
  bool recursive = false;
  // Macro/CallBlock parameters with defaults (null: none)
  std::string name;
  std::vector<std::pair<std::string, ExprPtr>> params;
  std::vector<ExprPtr> filters;  // SetBlock/FilterBlock: filter chain, each a Filter expr with a null subject
  std::vector<std::pair<std::string, ExprPtr>> assignments;  // With
  bool uses_caller = false;                                  // Macro body refers to `caller`
};

struct Template {
  std::string source;
  Body body;
};

}  // namespace triton_studio::chat::detail
