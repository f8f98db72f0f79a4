// JavaScript semantics for C++ compiled from TypeScript steps and hooks (generator/tscompile).
// Strings are UTF-16 (std::u16string: length, indexing and slicing count code units as JS does),
// numbers are doubles printed by ECMAScript's Number::toString, Math.exp is fdlibm's (what V8
// runs), case mapping comes from tables generated from Node itself. Differences from Node that
// cannot be avoided at compile time (reading outside an array) raise an error for the request
// instead of continuing with `undefined`; docs/HOOKS.md lists them. Header-only: the generated
// code and the differential harness include it directly.
//
// One header per family of built-ins, as generator/tscompile/builtins/ has one table per family;
// this umbrella is what generated code includes.

#pragma once

#include "triton_studio/ts_core.h"
#include "triton_studio/ts_math.h"
#include "triton_studio/ts_string.h"
#include "triton_studio/ts_array.h"
#include "triton_studio/ts_typed_array.h"
#include "triton_studio/ts_collections.h"
#include "triton_studio/ts_json.h"
