#include "precompiled.h"

#include <cstring>

#include "graphemes.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

// darts-clone's unit encoding, as spm_precompiled reads it.
bool HasLeaf(uint32_t unit) { return ((unit >> 8) & 1) != 0; }
uint32_t Value(uint32_t unit) { return unit & ((1u << 31) - 1); }
uint32_t Label(uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
size_t Offset(uint32_t unit) { return static_cast<size_t>(unit >> 10) << ((unit & (1u << 9)) >> 6); }

int Base64Digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// HF's Precompiled normalizer: text is walked grapheme cluster by grapheme cluster (extended
// clusters). A cluster shorter than 6 bytes whose prefix the charsmap knows is replaced whole;
// otherwise each of its code points is replaced when the charsmap knows it, or kept. (HF's own
// comment: "Yes, this is weird ... check this normalizer against XNLI ... with Unigram model
// against Mbart, XLMRoberta *AND* Marian"; it is what SentencePiece does.)
class Precompiled final : public Normalizer {
 public:
  explicit Precompiled(PrecompiledCharsmap charsmap) : charsmap_(std::move(charsmap)) {}

  void Normalize(std::string& text) const override {
    std::string out;
    bool modified = false;
    std::string_view replacement;
    const std::string_view all(text);
    for (size_t pos = 0; pos < all.size();) {
      const std::string_view cluster = all.substr(pos, graphemes::ClusterLength(all, pos));
      pos += cluster.size();
      if (cluster.size() < 6 && charsmap_.Transform(cluster, &replacement)) {
        modified = true;
        out.append(replacement);
        continue;
      }
      for (size_t i = 0; i < cluster.size();) {
        size_t n = utf8::ValidSequenceLength(cluster, i);
        if (n == 0) n = 1;
        const std::string_view part = cluster.substr(i, n);
        i += n;
        if (charsmap_.Transform(part, &replacement)) {
          modified = true;
          out.append(replacement);
        } else {
          out.append(part);
        }
      }
    }
    if (modified) text.swap(out);
  }

 private:
  PrecompiledCharsmap charsmap_;
};

}  // namespace

bool DecodeBase64(std::string_view text, std::string* out) {
  if (text.size() % 4 != 0) return false;
  out->clear();
  out->reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    uint32_t bits = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int d = k >= 4 - pad ? 0 : Base64Digit(text[i + k]);
      if (d < 0) return false;
      bits = bits << 6 | static_cast<uint32_t>(d);
    }
    // Bits a padded group leaves unused must be zero (canonical base64, as the base64 crate checks).
    if ((pad == 1 && (bits & 0xFF) != 0) || (pad == 2 && (bits & 0xFFFF) != 0)) return false;
    out->push_back(static_cast<char>(bits >> 16));
    if (pad < 2) out->push_back(static_cast<char>(bits >> 8 & 0xFF));
    if (pad < 1) out->push_back(static_cast<char>(bits & 0xFF));
  }
  return true;
}

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view bytes, const std::string& path) {
  const auto bad = [&](const std::string& what) {
    FieldError(path, what + " (expected SentencePiece's compiled charsmap: re-export the tokenizer with "
                            "transformers' converter, or use a normalizer such as NFKC)");
  };
  if (bytes.size() < 4) bad("charsmap shorter than its 4-byte header");
  uint32_t trie_bytes = 0;
  for (int k = 3; k >= 0; --k) trie_bytes = trie_bytes << 8 | static_cast<unsigned char>(bytes[k]);
  if (trie_bytes > bytes.size() - 4) bad("trie size " + std::to_string(trie_bytes) + " exceeds the charsmap");
  if (trie_bytes < 4) bad("trie is empty");
  trie_.resize(trie_bytes / 4);
  for (size_t u = 0; u < trie_.size(); ++u) {
    uint32_t v = 0;
    for (int k = 3; k >= 0; --k) v = v << 8 | static_cast<unsigned char>(bytes[4 + u * 4 + k]);
    trie_[u] = v;
  }
  normalized_.assign(bytes.substr(4 + trie_bytes));
  if (!utf8::IsValid(normalized_)) bad("replacement strings are not valid UTF-8");
}

bool PrecompiledCharsmap::ShortestPrefixValue(std::string_view key, uint32_t* value) const {
  size_t node = Offset(trie_[0]);
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) return false;
    node ^= c;
    if (node >= trie_.size()) return false;  // a malformed trie: no match rather than a read past it
    const uint32_t unit = trie_[node];
    if (Label(unit) != c) return false;
    node ^= Offset(unit);
    if (HasLeaf(unit)) {
      if (node >= trie_.size()) return false;
      *value = Value(trie_[node]);
      return true;
    }
  }
  return false;
}

bool PrecompiledCharsmap::Transform(std::string_view chunk, std::string_view* replacement) const {
  uint32_t index = 0;
  if (!ShortestPrefixValue(chunk, &index)) return false;
  if (index > normalized_.size()) return false;  // malformed: points past the blob
  const char* start = normalized_.data() + index;
  size_t len = strnlen(start, normalized_.size() - index);
  // A replacement that starts or ends inside a code point is not text (HF would panic): the
  // longest valid UTF-8 prefix of it stands.
  while (len > 0 && !utf8::IsValid(std::string_view(start, len))) --len;
  *replacement = std::string_view(start, len);
  return true;
}

std::unique_ptr<Normalizer> MakePrecompiled(const Json& node, const std::string& path) {
  AllowOnlyKeys(node, path, {"precompiled_charsmap"});
  const std::string field = path + ".precompiled_charsmap";
  const std::string base64 = GetString(node, "precompiled_charsmap", path);
  std::string bytes;
  if (!DecodeBase64(base64, &bytes)) FieldError(field, "not standard base64 with padding");
  return std::make_unique<Precompiled>(PrecompiledCharsmap(bytes, field));
}

}  // namespace triton_studio::tok
