// Added tokens found in the input before the model runs (see added_vocabulary.h), as HF's
// AddedVocabulary.
#include "added_vocabulary.h"

#include <algorithm>

#include "scanners/ascii_block.h"  // HasAvx2, and the SSE2/AVX2 intrinsics
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
        first_bytes_.push_back(byte);
      } else {
        auto& children = nodes_[node].children;
        children.insert(std::lower_bound(children.begin(), children.end(), std::make_pair(byte, 0u)),
                        {byte, next});
      }
    }
    node = next;
  }
  if (pattern.size() >= 2) {
    const auto second = static_cast<unsigned char>(pattern[1]);
    const unsigned pair = static_cast<unsigned>(static_cast<unsigned char>(pattern[0])) << 8 | second;
    pair_starts_[pair >> 6] |= uint64_t{1} << (pair & 63);
    if (std::find(second_bytes_.begin(), second_bytes_.end(), second) == second_bytes_.end())
      second_bytes_.push_back(second);
  }
  bool one_byte_pattern = false;
  for (const unsigned char b : first_bytes_) one_byte_pattern |= nodes_[root_children_[b]].token >= 0;
  one_byte_pattern |= pattern.size() == 1;
  pair_search_ = !one_byte_pattern && first_bytes_.size() >= 2 && first_bytes_.size() <= 4 && second_bytes_.size() <= 4;
  for (size_t k = 0; k < 4; ++k) {
    constexpr uint64_t kOnes = 0x0101010101010101ULL;
    first_words_[k] = kOnes * first_bytes_[k < first_bytes_.size() ? k : 0];
    second_words_[k] = second_bytes_.empty() ? 0 : kOnes * second_bytes_[k < second_bytes_.size() ? k : 0];
  }
  // A later pattern with the same bytes never wins a match (HF keeps the first), so keep the first.
  if (nodes_[node].token < 0) nodes_[node].token = static_cast<int64_t>(token);
}

size_t AddedVocabulary::Matcher::NextCandidate(std::string_view text, size_t i) const {
  if (pair_search_ && NextPairStart(text, i)) return i;
  for (;; ++i) {
    i = NextFirstByte(text, i);
    if (i >= text.size() || StartsAt(text, i)) return i;
  }
}

size_t AddedVocabulary::Matcher::NextFirstByte(std::string_view text, size_t i) const {
  const size_t n = text.size();
  if (i < n && first_bytes_.size() == 1) {
    // One first byte (GPT-2's "<|endoftext|>", Llama-3's "<|..."): memchr's vector loop.
    const void* hit = std::memchr(text.data() + i, first_bytes_[0], n - i);
    return hit == nullptr ? n : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
  }
  while (i < n && root_children_[static_cast<unsigned char>(text[i])] == 0) ++i;
  return i;
}

#if !defined(__SSE2__)
namespace {

// 0x80 in each byte of x equal to a byte of `words` (each a byte repeated eight times), else 0:
// exact per byte (no borrow crosses bytes, unlike the shorter zero-byte test).
uint64_t EqualBytes(uint64_t x, const uint64_t (&words)[4]) {
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL, kHigh = ~kLow7;
  uint64_t m = 0;
  for (const uint64_t w : words) {
    const uint64_t y = x ^ w;
    m |= ~(((y & kLow7) + kLow7) | y) & kHigh;
  }
  return m;
}

}  // namespace
#endif

bool AddedVocabulary::Matcher::NextPairStart(std::string_view text, size_t& i) const {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the first byte is the low bits");
  const size_t n = text.size();
  // Byte k of the second load is byte k + 1 of the text: a flag in both masks is a position
  // whose byte is a first byte and whose next byte is a second byte; the pair table decides.
#if defined(__SSE2__)
  if (scanners::HasAvx2()) return NextPairStartAvx2(text, i);
  const auto first_start = [&](size_t at, uint32_t flags) { return FirstStartIn(text, at, flags, i); };
  // Sixteen at a time, four compares for each of the two bytes (the words repeat a byte when
  // there are fewer): the byte values live in registers across the loop. A loop over the distinct
  // bytes, broadcasting each per block, was 60 instructions a block (CodeGen: 8% of encoding).
  __m128i first[4], second[4];
  for (size_t k = 0; k < 4; ++k) {
    first[k] = _mm_set1_epi64x(static_cast<long long>(first_words_[k]));
    second[k] = _mm_set1_epi64x(static_cast<long long>(second_words_[k]));
  }
  const auto flags_at = [&](const char* p) {
    const auto equal = [](__m128i v, const __m128i (&bytes)[4]) {
      return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, bytes[0]), _mm_cmpeq_epi8(v, bytes[1])),
                          _mm_or_si128(_mm_cmpeq_epi8(v, bytes[2]), _mm_cmpeq_epi8(v, bytes[3])));
    };
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
    return static_cast<uint32_t>(_mm_movemask_epi8(_mm_and_si128(equal(x, first), equal(next, second))));
  };
  size_t at = i;
  for (; at + 17 <= n; at += 16)
    if (first_start(at, flags_at(text.data() + at))) return true;
  // The last positions (those with a next byte) in one more block: the 17 bytes ending the text
  // when it has them, else a zero-padded copy, with the flags of positions already searched or
  // without a next byte cleared (not an 8-byte loop and then bytes, as without SSE2).
  bool found;
  if (at + 1 >= n) {
    found = false;
  } else if (n >= 17) {
    const size_t q = n - 17;  // flags for positions q ... n - 2, shifted to start at `at`
    found = first_start(at, flags_at(text.data() + q) >> (at - q));
  } else {
    char padded[32] = {};
    std::memcpy(padded, text.data(), n);
    found = first_start(0, flags_at(padded) & ((1u << (n - 1)) - 1) & ~((1u << at) - 1));
  }
  if (!found) i = n;
  return found;
#else
  for (; i + 9 <= n; i += 8) {
    uint64_t x, next;
    std::memcpy(&x, text.data() + i, 8);
    std::memcpy(&next, text.data() + i + 1, 8);
    for (uint64_t m = EqualBytes(x, first_words_) & EqualBytes(next, second_words_); m != 0; m &= m - 1) {
      const size_t at = i + (static_cast<size_t>(__builtin_ctzll(m)) >> 3);
      if (StartsAt(text, at)) {
        i = at;
        return true;
      }
    }
  }
  return false;
#endif
}

#if defined(__SSE2__)
namespace {

// Bit k: p[k] is one of `first` and p[k + 1] one of `second`, for k < 32.
[[gnu::target("avx2"), gnu::always_inline]] inline uint32_t PairFlags32(const char* p, const __m256i (&first)[4],
                                                                       const __m256i (&second)[4]) {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
  const __m256i is_first = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(x, first[0]), _mm256_cmpeq_epi8(x, first[1])),
                                           _mm256_or_si256(_mm256_cmpeq_epi8(x, first[2]), _mm256_cmpeq_epi8(x, first[3])));
  const __m256i is_second =
      _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(next, second[0]), _mm256_cmpeq_epi8(next, second[1])),
                      _mm256_or_si256(_mm256_cmpeq_epi8(next, second[2]), _mm256_cmpeq_epi8(next, second[3])));
  return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(is_first, is_second)));
}

}  // namespace

// NextPairStart's SSE2 search at twice the width, its last block the same way; written out (a
// lambda would not take on the AVX2 target).
[[gnu::target("avx2")]] bool AddedVocabulary::Matcher::NextPairStartAvx2(std::string_view text, size_t& i) const {
  const size_t n = text.size();
  __m256i first[4], second[4];
  for (size_t k = 0; k < 4; ++k) {
    first[k] = _mm256_set1_epi64x(static_cast<long long>(first_words_[k]));
    second[k] = _mm256_set1_epi64x(static_cast<long long>(second_words_[k]));
  }
  size_t at = i;
  for (; at + 33 <= n; at += 32)
    if (FirstStartIn(text, at, PairFlags32(text.data() + at, first, second), i)) return true;
  if (at + 1 < n) {
    if (n >= 33) {
      const size_t q = n - 33;  // flags for positions q ... n - 2, shifted to start at `at`
      if (FirstStartIn(text, at, PairFlags32(text.data() + q, first, second) >> (at - q), i)) return true;
    } else {
      char padded[64] = {};
      std::memcpy(padded, text.data(), n);
      const uint32_t flags = PairFlags32(padded, first, second) & ((1u << (n - 1)) - 1) & ~((1u << at) - 1);
      if (FirstStartIn(text, 0, flags, i)) return true;
    }
  }
  i = n;
  return false;
}
#endif

bool AddedVocabulary::Matcher::LongestAt(std::string_view text, size_t i, size_t& token, size_t& length) const {
  // The walk in locals: CodeGen walks a whitespace run's length for most of its matches, and a
  // call and two stores through the references per byte were 37 instructions.
  const Node* const nodes = nodes_.data();
  uint32_t node = root_children_[static_cast<unsigned char>(text[i])];
  int64_t found = -1;
  size_t end = i, j = i + 1;
  for (; node != 0; ++j) {
    if (nodes[node].token >= 0) {
      found = nodes[node].token;
      end = j;
    }
    if (j == text.size()) break;
    node = nodes[node].Child(static_cast<unsigned char>(text[j]));
  }
  if (found < 0) return false;
  token = static_cast<size_t>(found);
  length = end - i;
  return true;
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
