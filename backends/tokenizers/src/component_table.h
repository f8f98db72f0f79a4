// One table per pipeline stage maps a tokenizer.json component's "type" to the function that
// builds it. The "supported: …" list of an unknown-type error is printed from the same table, so
// what the library implements and what its errors claim cannot drift apart.
#pragma once

#include <string>

#include "json_fields.h"

namespace triton_studio::tok {

template <typename Factory>
struct ComponentEntry {
  const char* type;
  Factory make;
};

// The factory registered for node's "type"; an unknown type is a FieldError at `path.type` that
// lists every registered type (`stage` names the stage in the message, e.g. "normalizer").
template <typename Factory, size_t N>
Factory FindComponent(const ComponentEntry<Factory> (&table)[N], const Json& node, const std::string& path,
                      const char* stage) {
  const std::string type = TypeOf(node, path);
  for (const auto& entry : table)
    if (type == entry.type) return entry.make;
  std::string supported;
  for (const auto& entry : table) supported += (supported.empty() ? "" : ", ") + std::string(entry.type);
  FieldError(path + ".type", "unsupported " + std::string(stage) + " '" + type + "' (supported: " + supported + ")");
}

}  // namespace triton_studio::tok
