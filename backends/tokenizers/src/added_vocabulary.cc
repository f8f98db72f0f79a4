// Added tokens found in the input before the model runs (see added_vocabulary.h), as HF's
// AddedVocabulary.
#include "added_vocabulary.h"

#include <algorithm>

#include "unicode.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

bool IsWordChar(char32_t c) { return c == '_' || unicode::IsLetter(c) || unicode::IsNumber(c); }

// Code point ending at byte `end` of valid UTF-8 `s` (end > 0).
char32_t LastChar(std::string_view s, size_t end) {
  size_t b = end - 1;
  while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
  return utf8::DecodeAt(s, b, end - b);
}

char32_t FirstChar(std::string_view s, size_t begin) {
  return utf8::DecodeAt(s, begin, utf8::ValidSequenceLength(s, begin));
}

}  // namespace

void AddedVocabulary::Matcher::Add(std::string_view pattern, size_t token) {
  if (pattern.empty()) return;  // HF's matcher never matches an empty pattern
  uint32_t node = 0;
  for (const char ch : pattern) {
    const auto byte = static_cast<unsigned char>(ch);
    uint32_t next = Child(node, byte);
    if (next == 0) {
      next = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
      if (node == 0) {
        root_children_[byte] = next;
        const bool first_root_child = nodes_.size() == 2;
        only_first_byte_ = first_root_child ? byte : -1;
      } else {
        auto& children = nodes_[node].children;
        children.insert(std::lower_bound(children.begin(), children.end(), std::make_pair(byte, 0u)),
                        {byte, next});
      }
    }
    node = next;
  }
  // A later pattern with the same bytes never wins a match (HF keeps the first), so keep the first.
  if (nodes_[node].token < 0) nodes_[node].token = static_cast<int64_t>(token);
}

uint32_t AddedVocabulary::Matcher::Child(uint32_t node, unsigned char byte) const {
  if (node == 0) return root_children_[byte];
  for (const auto& [b, child] : nodes_[node].children) {
    if (b == byte) return child;
    if (b > byte) break;
  }
  return 0;
}

bool AddedVocabulary::Matcher::LongestAt(std::string_view text, size_t i, size_t& token, size_t& length) const {
  uint32_t node = root_children_[static_cast<unsigned char>(text[i])];
  bool found = false;
  for (size_t j = i + 1; node != 0; ++j) {
    if (nodes_[node].token >= 0) {
      token = static_cast<size_t>(nodes_[node].token);
      length = j - i;
      found = true;
    }
    if (j == text.size()) break;
    node = Child(node, static_cast<unsigned char>(text[j]));
  }
  return found;
}

void AddedVocabulary::Load(const Json& list, const std::string& path, const Normalizer* normalizer,
                           const Vocab& model_vocab) {
  if (!list.is_array()) FieldError(path, "expected an array");
  std::optional<uint32_t> max_id;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    const Json& t = list[i];
    if (!t.is_object()) FieldError(p, "expected an object");
    AllowOnlyKeys(t, p, {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"});
    AddedToken tok;
    const Json* id = Find(t, "id");
    if (id == nullptr || !IsTokenId(*id)) FieldError(p + ".id", "expected a non-negative id below 2^32 (a u32)");
    tok.content = GetString(t, "content", p);
    if (!utf8::IsValid(tok.content)) FieldError(p + ".content", "not valid UTF-8");
    tok.special = GetBool(t, "special", p, false);
    tok.single_word = GetBool(t, "single_word", p, false);
    tok.lstrip = GetBool(t, "lstrip", p, false);
    tok.rstrip = GetBool(t, "rstrip", p, false);
    tok.normalized = GetBool(t, "normalized", p, !tok.special);
    if (tok.content.empty()) continue;  // HF ignores empty added tokens
    auto existing = by_content_.find(tok.content);
    if (existing != by_content_.end()) {
      tok.id = tokens_[existing->second].id;
      tokens_[existing->second] = tok;  // the later definition's options win
      continue;
    }
    if (auto in_model = model_vocab.Find(tok.content)) {
      tok.id = *in_model;
    } else {
      const uint32_t size = model_vocab.Size();
      tok.id = (max_id && (*max_id >= size || size == 0)) ? *max_id + 1 : size;
    }
    max_id = max_id ? std::max(*max_id, tok.id) : tok.id;
    by_content_[tok.content] = tokens_.size();
    by_id_[tok.id] = tokens_.size();
    tokens_.push_back(tok);
  }
  for (size_t i = 0; i < tokens_.size(); ++i) {
    AddedToken& t = tokens_[i];
    t.decode_form = t.content;
    if (t.special) special_contents_.insert(t.content);
    if (!t.normalized) {
      raw_.Add(t.content, i);
    } else {
      if (normalizer != nullptr) normalizer->Normalize(t.decode_form);
      normalized_.Add(t.decode_form, i);
    }
  }
}

void AddedVocabulary::Split(std::string_view text, bool normalized, std::vector<AddedSplit>& out) const {
  const Matcher& m = normalized ? normalized_ : raw_;
  const auto push_text = [&](size_t b, size_t e) {
    if (b < e) out.push_back({b, e, std::nullopt});
  };
  if (m.empty()) {
    push_text(0, text.size());
    return;
  }
  size_t start_offset = 0;  // end of the last emitted token
  size_t i = 0;             // where the search resumes (end of the last raw match)
  while ((i = m.NextCandidate(text, i)) < text.size()) {
    size_t token = 0, length = 0;
    if (!m.LongestAt(text, i, token, length)) {
      ++i;
      continue;
    }
    const AddedToken& tok = tokens_[token];
    size_t start = i, stop = i + length;
    i = stop;
    if (tok.single_word) {
      const bool start_ok = start == 0 || !IsWordChar(LastChar(text, start));
      const bool stop_ok = stop == text.size() || !IsWordChar(FirstChar(text, stop));
      if (!start_ok || !stop_ok) continue;
    }
    if (tok.lstrip) {
      size_t s = start;
      while (s > 0) {
        size_t b = s - 1;
        while (b > 0 && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
        if (!unicode::IsWhiteSpace(utf8::DecodeAt(text, b, s - b))) break;
        s = b;
      }
      start = std::max(s, start_offset);  // spaces an earlier match already took stay there
    }
    if (tok.rstrip) {
      while (stop < text.size()) {
        const size_t n = utf8::ValidSequenceLength(text, stop);
        if (!unicode::IsWhiteSpace(utf8::DecodeAt(text, stop, n))) break;
        stop += n;
      }
    }
    push_text(start_offset, start);
    out.push_back({start, stop, tok.id});
    start_offset = stop;
  }
  push_text(start_offset, text.size());
}

}  // namespace triton_studio::tok
