// tokenizer.json read into a DOM, with vocab and merges by a SAX pass (see tokenizer_json.h).
#include "tokenizer_json.h"

#include "serde_float.h"

namespace triton_studio::tok {
namespace {

// Builds the DOM the way nlohmann's own DOM parser does (a stack of open containers; a repeated
// key keeps its last value), except for the two tables, which it reads into flat vectors.
class Reader final : public nlohmann::json_sax<Json> {
 public:
  explicit Reader(TokenizerJson& out) : out_(out) {}

  bool null() override { return Scalar(Json(nullptr)); }
  bool boolean(bool v) override { return Scalar(Json(v)); }
  bool number_integer(number_integer_t v) override { return Scalar(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    if (mode_ == kVocab && nest_ == 0) {
      // Ids are u32 in Hugging Face, which refuses larger ones: never wrap them.
      if (v > UINT32_MAX) return Scalar(Json(v));
      if (!out_.vocab->bad_key) out_.vocab->entries.emplace_back(std::move(vocab_key_), static_cast<uint32_t>(v));
      return true;
    }
    return Scalar(Json(v));
  }
  // Floats hold the double HF's serde_json reads from the same text (serde_float.h).
  bool number_float(number_float_t v, const string_t& text) override {
    return Scalar(Json(SerdeJsonF64(text).value_or(v)));
  }
  bool binary(binary_t& v) override { return Scalar(Json(nlohmann::json::binary_t(std::move(v)))); }
  bool string(string_t& v) override {
    if (mode_ == kMerges) {
      if (nest_ == 0) {
        const size_t sp = v.find(' ');  // legacy form "left right": split at the first space
        if (sp == std::string::npos) return BadMerge("expected \"left right\"");
        if (!out_.merges->bad) out_.merges->pairs.emplace_back(v.substr(0, sp), v.substr(sp + 1));
        return true;
      }
      if (nest_ == 1) element_.push_back(std::move(v));
      return true;
    }
    return Scalar(Json(std::move(v)));
  }

  bool start_object(std::size_t) override {
    if (mode_ != kDom) return Open(/*array=*/false);
    if (AtModel() && key_ == "vocab") {
      out_.vocab.emplace();
      if (Json* model = stack_.back(); model->contains("vocab")) model->erase("vocab");
      mode_ = kVocab;
      nest_ = 0;
      return true;
    }
    const bool is_model = stack_.size() == 1 && key_ == "model";
    Json* obj = Put(Json::object());
    stack_.push_back(obj);
    if (is_model) {
      model_ = obj;
      out_.vocab.reset();  // a repeated "model" replaces the first one entirely
      out_.merges.reset();
    }
    return true;
  }
  bool key(string_t& k) override {
    if (mode_ == kVocab) {
      if (nest_ == 0) vocab_key_ = std::move(k);
      return true;
    }
    if (mode_ == kMerges) return true;
    if (AtModel()) {
      // A later value for the key replaces a table read earlier.
      if (k == "vocab") out_.vocab.reset();
      if (k == "merges") out_.merges.reset();
    }
    element_slot_ = &(*stack_.back())[k];
    key_ = std::move(k);
    return true;
  }
  bool end_object() override {
    if (mode_ != kDom) return Close();
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    if (mode_ != kDom) return Open(/*array=*/true);
    if (AtModel() && key_ == "merges") {
      out_.merges.emplace();
      if (Json* model = stack_.back(); model->contains("merges")) model->erase("merges");
      mode_ = kMerges;
      nest_ = 0;
      return true;
    }
    stack_.push_back(Put(Json::array()));
    return true;
  }
  bool end_array() override {
    if (mode_ != kDom) return Close();
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  enum Mode { kDom, kVocab, kMerges };

  bool AtModel() const { return !stack_.empty() && stack_.back() == model_ && stack_.size() == 2; }

  Json* Put(Json v) {
    if (stack_.empty()) {
      out_.root = std::move(v);
      return &out_.root;
    }
    Json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    *element_slot_ = std::move(v);
    return element_slot_;
  }

  bool Scalar(Json v) {
    if (mode_ == kDom) {
      Put(std::move(v));
    } else if (mode_ == kVocab) {
      if (nest_ == 0 && !out_.vocab->bad_key) out_.vocab->bad_key = vocab_key_;
    } else if (nest_ == 0) {
      return BadMerge("expected \"left right\" or [\"left\", \"right\"]");
    } else {
      element_ok_ = false;
    }
    return true;
  }

  // A container inside a table.
  bool Open(bool array) {
    if (mode_ == kVocab) {
      if (nest_ == 0 && !out_.vocab->bad_key) out_.vocab->bad_key = vocab_key_;
    } else if (nest_ == 0) {
      element_.clear();
      element_ok_ = array;
    } else {
      element_ok_ = false;
    }
    ++nest_;
    return true;
  }
  bool Close() {
    if (nest_ == 0) {  // the table itself ends
      mode_ = kDom;
      return true;
    }
    if (--nest_ == 0 && mode_ == kMerges) {
      if (!element_ok_ || element_.size() != 2)
        return BadMerge("expected \"left right\" or [\"left\", \"right\"]");
      if (!out_.merges->bad) out_.merges->pairs.emplace_back(std::move(element_[0]), std::move(element_[1]));
    }
    return true;
  }
  bool BadMerge(const char* what) {
    if (!out_.merges->bad) out_.merges->bad = what;
    return true;
  }

  TokenizerJson& out_;
  std::vector<Json*> stack_;
  Json* element_slot_ = nullptr;
  Json* model_ = nullptr;
  std::string key_;  // the last key read in the DOM
  std::string error_;
  Mode mode_ = kDom;
  size_t nest_ = 0;  // containers open inside the table's entry being read
  std::string vocab_key_;
  std::vector<std::string> element_;  // strings of the merge pair being read
  bool element_ok_ = false;
};

}  // namespace

TokenizerJson ParseTokenizerJson(std::string_view text) {
  TokenizerJson out;
  Reader reader(out);
  bool ok = false;
  try {
    ok = Json::sax_parse(text.begin(), text.end(), &reader);
  } catch (const nlohmann::json::exception& e) {
    // Thrown past the handler: out_of_range for numbers beyond double (found by fuzz_load).
    throw TokenizerError(std::string("tokenizer.json: not valid JSON: ") + e.what());
  }
  if (!ok) throw TokenizerError("tokenizer.json: not valid JSON: " + reader.error());
  return out;
}

}  // namespace triton_studio::tok
