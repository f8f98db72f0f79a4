// Reading tokenizer.json fields with errors that name the offending field by its path
// (e.g. "model.merges[12]: expected a string").
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>

#include "triton_studio/tokenizer.h"

namespace triton_studio::tok {

using Json = nlohmann::json;

[[noreturn]] inline void FieldError(const std::string& path, const std::string& what) {
  throw TokenizerError("tokenizer.json: " + path + ": " + what);
}

// The component's "type" string, required.
inline std::string TypeOf(const Json& node, const std::string& path) {
  if (!node.is_object()) FieldError(path, "expected an object");
  auto it = node.find("type");
  if (it == node.end() || !it->is_string()) FieldError(path + ".type", "missing component type");
  return it->get<std::string>();
}

inline const Json* Find(const Json& node, const char* key) {
  auto it = node.find(key);
  return (it == node.end() || it->is_null()) ? nullptr : &*it;
}

inline std::string GetString(const Json& node, const char* key, const std::string& path,
                             const std::string* fallback = nullptr) {
  const Json* v = Find(node, key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    FieldError(path + "." + key, "missing (a string is required)");
  }
  if (!v->is_string()) FieldError(path + "." + key, "expected a string");
  return v->get<std::string>();
}

inline bool GetBool(const Json& node, const char* key, const std::string& path, bool fallback) {
  const Json* v = Find(node, key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) FieldError(path + "." + key, "expected true or false");
  return v->get<bool>();
}

inline uint64_t GetUint(const Json& node, const char* key, const std::string& path, uint64_t fallback) {
  const Json* v = Find(node, key);
  if (v == nullptr) return fallback;
  if (!v->is_number_unsigned() && !(v->is_number_integer() && v->get<int64_t>() >= 0))
    FieldError(path + "." + key, "expected a non-negative integer");
  return v->get<uint64_t>();
}

// A token id: Hugging Face reads ids as u32 and refuses larger ones ("expected u32"), never wraps them.
inline bool IsTokenId(const Json& v) { return v.is_number_unsigned() && v.get<uint64_t>() <= UINT32_MAX; }

// Rejects keys this library does not know for a component, so a newer option is never ignored.
inline void AllowOnlyKeys(const Json& node, const std::string& path, std::initializer_list<const char*> keys) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    bool known = it.key() == "type";
    for (const char* k : keys) known = known || it.key() == k;
    if (!known) FieldError(path + "." + it.key(), "unsupported option (this library does not implement it)");
  }
}

}  // namespace triton_studio::tok
