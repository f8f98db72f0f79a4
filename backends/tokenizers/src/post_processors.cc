// HF's post-processors (see post_processors.h): special tokens around an encoded sequence.
#include "post_processors.h"

#include "component_table.h"

namespace triton_studio::tok {
namespace {

class PassThrough final : public PostProcessor {
 public:
  size_t AddedCount() const override { return 0; }
  void Process(std::vector<uint32_t>&) const override {}
};

// Ids placed before and after the sequence.
class Wrap final : public PostProcessor {
 public:
  Wrap(std::vector<uint32_t> before, std::vector<uint32_t> after)
      : before_(std::move(before)), after_(std::move(after)) {}
  size_t AddedCount() const override { return before_.size() + after_.size(); }
  void Process(std::vector<uint32_t>& ids) const override {
    ids.insert(ids.begin(), before_.begin(), before_.end());
    ids.insert(ids.end(), after_.begin(), after_.end());
  }

 private:
  std::vector<uint32_t> before_, after_;
};

class Sequence final : public PostProcessor {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PostProcessor>> parts) : parts_(std::move(parts)) {}
  size_t AddedCount() const override {
    size_t n = 0;
    for (const auto& p : parts_) n += p->AddedCount();
    return n;
  }
  void Process(std::vector<uint32_t>& ids) const override {
    for (const auto& p : parts_) p->Process(ids);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> parts_;
};

uint32_t PairId(const Json& node, const char* key, const std::string& path) {
  const Json* v = Find(node, key);
  if (v == nullptr || !v->is_array() || v->size() != 2 || !IsTokenId((*v)[1]))
    FieldError(path + "." + key, "expected [\"token\", id]");
  return (*v)[1].get<uint32_t>();
}

std::unique_ptr<PostProcessor> MakeTemplate(const Json& node, const std::string& path) {
  const Json* single = Find(node, "single");
  if (single == nullptr || !single->is_array()) FieldError(path + ".single", "expected an array of pieces");
  const Json* specials = Find(node, "special_tokens");
  std::vector<uint32_t> before, after;
  bool seen_sequence = false;
  for (size_t i = 0; i < single->size(); ++i) {
    const std::string p = path + ".single[" + std::to_string(i) + "]";
    const Json& piece = (*single)[i];
    if (const Json* seq = Find(piece, "Sequence")) {
      if (GetString(*seq, "id", p + ".Sequence") != "A") FieldError(p + ".Sequence.id", "a single template uses A");
      if (seen_sequence) FieldError(p, "the sequence appears twice");
      seen_sequence = true;
    } else if (const Json* sp = Find(piece, "SpecialToken")) {
      const std::string name = GetString(*sp, "id", p + ".SpecialToken");
      const Json* entry = specials ? Find(*specials, name.c_str()) : nullptr;
      if (entry == nullptr) FieldError(path + ".special_tokens", "no entry for '" + name + "'");
      const Json* ids = Find(*entry, "ids");
      if (ids == nullptr || !ids->is_array()) FieldError(path + ".special_tokens." + name + ".ids", "expected ids");
      for (const Json& id : *ids) {
        if (!IsTokenId(id)) FieldError(path + ".special_tokens." + name + ".ids", "expected ids below 2^32 (u32)");
        (seen_sequence ? after : before).push_back(id.get<uint32_t>());
      }
    } else {
      FieldError(p, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
  }
  if (!seen_sequence) FieldError(path + ".single", "the template never places the sequence");
  return std::make_unique<Wrap>(std::move(before), std::move(after));
}

using PostProcessorFactory = std::unique_ptr<PostProcessor> (*)(const Json&, const std::string&);

std::unique_ptr<PostProcessor> MakeClsSep(const Json& node, const std::string& path) {
  return std::make_unique<Wrap>(std::vector<uint32_t>{PairId(node, "cls", path)},
                                std::vector<uint32_t>{PairId(node, "sep", path)});
}

const ComponentEntry<PostProcessorFactory> kPostProcessors[] = {
    {"TemplateProcessing", MakeTemplate},
    {"BertProcessing", MakeClsSep},
    {"RobertaProcessing", MakeClsSep},
    // Byte-level offsets only matter for offset mapping, which this library does not return.
    {"ByteLevel", [](const Json&, const std::string&) -> std::unique_ptr<PostProcessor> {
       return std::make_unique<PassThrough>();
     }},
    {"Sequence",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PostProcessor> {
       const Json* list = Find(node, "processors");
       if (list == nullptr || !list->is_array()) FieldError(path + ".processors", "expected an array");
       std::vector<std::unique_ptr<PostProcessor>> parts;
       for (size_t i = 0; i < list->size(); ++i)
         parts.push_back(MakePostProcessor((*list)[i], path + ".processors[" + std::to_string(i) + "]"));
       return std::make_unique<Sequence>(std::move(parts));
     }},
};

}  // namespace

std::unique_ptr<PostProcessor> MakePostProcessor(const Json& node, const std::string& path) {
  return FindComponent(kPostProcessors, node, path, "post-processor")(node, path);
}

}  // namespace triton_studio::tok
