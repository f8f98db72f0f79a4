// HF's post-processors (see post_processors.h): special tokens around an encoded sequence.
#include "post_processors.h"

#include "component_table.h"

namespace triton_studio::tok {
namespace {

Segment Specials(std::vector<uint32_t> ids, uint32_t type_id) {
  Segment s{std::move(ids), {}};
  s.type_ids.assign(s.ids.size(), type_id);
  return s;
}

void SetTypeIds(Segment& s, uint32_t type_id) { s.type_ids.assign(s.ids.size(), type_id); }

class PassThrough final : public PostProcessor {
 public:
  size_t AddedCount(bool) const override { return 0; }
  void Process(std::vector<uint32_t>&) const override {}
  void ProcessSegments(std::vector<Segment>&, bool) const override {}
};

// BertProcessing ([CLS] A [SEP] B [SEP], B's part type 1) and RobertaProcessing (<s> A </s></s> B
// </s>, every type id 0, even without special tokens), as HF's bert.rs / roberta.rs.
class ClsSep final : public PostProcessor {
 public:
  ClsSep(uint32_t cls, uint32_t sep, bool roberta) : cls_(cls), sep_(sep), roberta_(roberta) {}
  size_t AddedCount(bool pair) const override { return pair ? (roberta_ ? 4 : 3) : 2; }
  void Process(std::vector<uint32_t>& ids) const override {
    ids.insert(ids.begin(), cls_);
    ids.push_back(sep_);
  }
  void ProcessSegments(std::vector<Segment>& segments, bool add_special_tokens) const override {
    if (roberta_)
      for (Segment& s : segments) SetTypeIds(s, 0);
    if (!add_special_tokens) return;
    std::vector<Segment> out;
    for (size_t i = 0; i < segments.size(); ++i) {
      const uint32_t type = i == 0 || roberta_ ? 0 : 1;
      if (i == 0) out.push_back(Specials({cls_}, 0));
      if (i > 0 && roberta_) out.push_back(Specials({sep_}, 0));
      out.push_back(std::move(segments[i]));
      out.push_back(Specials({sep_}, type));
    }
    segments = std::move(out);
  }

 private:
  uint32_t cls_, sep_;
  bool roberta_;
};

// One piece of a TemplateProcessing template: sequence A or B, or a special token's ids.
struct Piece {
  int sequence = -1;  // 0 for $A, 1 for $B, -1 for a special token
  std::vector<uint32_t> ids;
  uint32_t type_id = 0;
};

class Template final : public PostProcessor {
 public:
  Template(std::vector<Piece> single, std::vector<Piece> pair) : single_(std::move(single)), pair_(std::move(pair)) {}
  size_t AddedCount(bool pair) const override {
    size_t n = 0;
    for (const Piece& p : pair ? pair_ : single_) n += p.ids.size();
    return n;
  }
  void Process(std::vector<uint32_t>& ids) const override {
    std::vector<uint32_t> out;
    out.reserve(ids.size() + AddedCount(false));
    for (const Piece& p : single_) {
      const std::vector<uint32_t>& part = p.sequence == 0 ? ids : p.ids;
      out.insert(out.end(), part.begin(), part.end());
    }
    ids = std::move(out);
  }
  // HF apply_template: every piece in order; a sequence takes the piece's type id.
  void ProcessSegments(std::vector<Segment>& segments, bool add_special_tokens) const override {
    if (segments.size() > 2) throw TokenizerError("post_processor: a template takes one or two sequences");
    if (segments.size() == 2 && pair_.empty())
      throw TokenizerError("post_processor: the template has no \"pair\" part, so it cannot encode a text pair");
    const std::vector<Piece>& pieces = segments.size() == 2 ? pair_ : single_;
    std::vector<Segment> out;
    for (const Piece& p : pieces) {
      if (p.sequence >= 0) {
        if (static_cast<size_t>(p.sequence) >= segments.size())
          throw TokenizerError("post_processor: the single template places $B");
        Segment s = segments[static_cast<size_t>(p.sequence)];
        SetTypeIds(s, p.type_id);
        out.push_back(std::move(s));
      } else if (add_special_tokens) {
        out.push_back(Specials(p.ids, p.type_id));
      }
    }
    segments = std::move(out);
  }

 private:
  std::vector<Piece> single_, pair_;
};

class Sequence final : public PostProcessor {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PostProcessor>> parts) : parts_(std::move(parts)) {}
  size_t AddedCount(bool pair) const override {
    size_t n = 0;
    for (const auto& p : parts_) n += p->AddedCount(pair);
    return n;
  }
  void Process(std::vector<uint32_t>& ids) const override {
    for (const auto& p : parts_) p->Process(ids);
  }
  void ProcessSegments(std::vector<Segment>& segments, bool add_special_tokens) const override {
    for (const auto& p : parts_) p->ProcessSegments(segments, add_special_tokens);
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

uint32_t TypeId(const Json& node, const std::string& path) {
  const Json* t = Find(node, "type_id");
  if (t == nullptr) return 0;
  if (!IsTokenId(*t)) FieldError(path + ".type_id", "expected a type id below 2^32 (u32)");
  return t->get<uint32_t>();
}

// The pieces of template `key` ("single" or "pair"); A (and B in a pair) must appear.
std::vector<Piece> ParsePieces(const Json& node, const char* key, const std::string& path) {
  const Json* list = Find(node, key);
  const std::string at = path + "." + key;
  if (list == nullptr || !list->is_array()) FieldError(at, "expected an array of pieces");
  const Json* specials = Find(node, "special_tokens");
  std::vector<Piece> pieces;
  bool seen[2] = {false, false};
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string p = at + "[" + std::to_string(i) + "]";
    const Json& piece = (*list)[i];
    Piece out;
    if (const Json* seq = Find(piece, "Sequence")) {
      const std::string id = GetString(*seq, "id", p + ".Sequence");
      if (id != "A" && id != "B") FieldError(p + ".Sequence.id", "expected A or B");
      out.sequence = id == "A" ? 0 : 1;
      seen[out.sequence] = true;
      out.type_id = TypeId(*seq, p + ".Sequence");
    } else if (const Json* sp = Find(piece, "SpecialToken")) {
      const std::string name = GetString(*sp, "id", p + ".SpecialToken");
      const Json* entry = specials ? Find(*specials, name.c_str()) : nullptr;
      if (entry == nullptr) FieldError(path + ".special_tokens", "no entry for '" + name + "'");
      const Json* ids = Find(*entry, "ids");
      if (ids == nullptr || !ids->is_array()) FieldError(path + ".special_tokens." + name + ".ids", "expected ids");
      for (const Json& id : *ids) {
        if (!IsTokenId(id)) FieldError(path + ".special_tokens." + name + ".ids", "expected ids below 2^32 (u32)");
        out.ids.push_back(id.get<uint32_t>());
      }
      out.type_id = TypeId(*sp, p + ".SpecialToken");
    } else {
      FieldError(p, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
    pieces.push_back(std::move(out));
  }
  if (!seen[0]) FieldError(at, "the template never places sequence A");
  if (std::string(key) == "single" && seen[1]) FieldError(at, "a single template places only A");
  if (std::string(key) == "pair" && !seen[1]) FieldError(at, "the pair template never places sequence B");
  return pieces;
}

std::unique_ptr<PostProcessor> MakeTemplate(const Json& node, const std::string& path) {
  std::vector<Piece> single = ParsePieces(node, "single", path);
  // HF serializes "pair" always; a hand-written file without one (or with "pair": [], which HF
  // loads too) still encodes single texts, and a pair is refused with a clear error.
  const Json* pair_node = Find(node, "pair");
  const bool has_pair = pair_node != nullptr && !(pair_node->is_array() && pair_node->empty());
  std::vector<Piece> pair = has_pair ? ParsePieces(node, "pair", path) : std::vector<Piece>{};
  return std::make_unique<Template>(std::move(single), std::move(pair));
}

using PostProcessorFactory = std::unique_ptr<PostProcessor> (*)(const Json&, const std::string&);

const ComponentEntry<PostProcessorFactory> kPostProcessors[] = {
    {"TemplateProcessing", MakeTemplate},
    {"BertProcessing",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PostProcessor> {
       return std::make_unique<ClsSep>(PairId(node, "cls", path), PairId(node, "sep", path), false);
     }},
    {"RobertaProcessing",
     [](const Json& node, const std::string& path) -> std::unique_ptr<PostProcessor> {
       return std::make_unique<ClsSep>(PairId(node, "cls", path), PairId(node, "sep", path), true);
     }},
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
