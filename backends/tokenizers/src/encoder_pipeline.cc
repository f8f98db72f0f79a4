// The encoder half of HF's Tokenizer: text pairs, truncation, type ids, attention masks and padding
// (HF post_process + encode_batch, utils/truncation.rs and utils/padding.rs).
#include <algorithm>
#include <limits>

#include "hf_tokenizer.h"

namespace triton_studio::tok {
namespace {

// HF Encoding::truncate for the ids that stay (the overflowing windows are not kept).
void Cut(std::vector<uint32_t>& ids, size_t max_len, const TruncationParams& params) {
  if (max_len >= ids.size()) return;
  if (max_len > 0 && params.stride >= max_len) {
    // HF asserts here (a Rust panic); the cause and the fix are said instead.
    throw TokenizerError("truncation: stride " + std::to_string(params.stride) + " must be below the length " +
                         std::to_string(max_len) +
                         " a sequence is cut to (max_length minus the special tokens); lower the stride or "
                         "raise max_length");
  }
  if (params.left) {
    ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(max_len));
  } else {
    ids.resize(max_len);
  }
}

// HF truncate_encodings.
void Truncate(std::vector<uint32_t>& a, std::vector<uint32_t>* b, const TruncationParams& params) {
  if (params.max_length == 0) {
    a.clear();
    if (b) b->clear();
    return;
  }
  const size_t total = a.size() + (b ? b->size() : 0);
  if (total <= params.max_length) return;
  const size_t to_remove = total - params.max_length;
  if (params.strategy == TruncationStrategy::kLongestFirst) {
    if (!b) return Cut(a, params.max_length, params);
    // Only the longer text is cut when the shorter fits in half; else both to half each.
    size_t n1 = a.size(), n2 = b->size();
    const bool swap = n1 > n2;
    if (swap) std::swap(n1, n2);
    n2 = n1 > params.max_length ? n1 : std::max(n1, params.max_length - n1);
    if (n1 + n2 > params.max_length) {
      n1 = params.max_length / 2;
      n2 = n1 + params.max_length % 2;
    }
    if (swap) std::swap(n1, n2);
    Cut(a, n1, params);
    Cut(*b, n2, params);
    return;
  }
  std::vector<uint32_t>* target = params.strategy == TruncationStrategy::kOnlyFirst ? &a : b;
  if (target == nullptr)
    throw TokenizerError("truncation: strategy OnlySecond needs a second text (a pair); send one or use LongestFirst");
  if (target->size() <= to_remove) {
    throw TokenizerError("truncation: the " +
                         std::string(target == &a ? "first" : "second") + " text (" + std::to_string(target->size()) +
                         " tokens) is too short to cut " + std::to_string(to_remove) +
                         " tokens from to respect max_length " + std::to_string(params.max_length) +
                         "; use LongestFirst or raise max_length");
  }
  Cut(*target, target->size() - to_remove, params);
}

// HF Encoding::pad.
void Pad(Encoding& e, size_t length, const PaddingParams& params) {
  if (e.ids.size() >= length) return;
  const size_t n = length - e.ids.size();
  const auto at = [&](std::vector<uint32_t>& v) { return params.left ? v.begin() : v.end(); };
  e.ids.insert(at(e.ids), n, params.pad_id);
  e.type_ids.insert(at(e.type_ids), n, params.pad_type_id);
  e.attention_mask.insert(at(e.attention_mask), n, 0);
}

size_t PadLength(size_t length, const PaddingParams& params) {
  if (params.multiple_of > 0 && length % params.multiple_of > 0) length += params.multiple_of - length % params.multiple_of;
  return length;
}

}  // namespace

Encoding HfTokenizer::PostProcess(std::vector<uint32_t> a, std::optional<std::vector<uint32_t>> b,
                                  bool add_special_tokens, const EncoderOptions& options) const {
  if (options.truncation) {
    TruncationParams params = *options.truncation;
    const size_t added = post_processor_ ? post_processor_->AddedCount(b.has_value()) : 0;
    // HF subtracts the added tokens in usize, which wraps when max_length is smaller than them:
    // nothing is cut then. The same here, so ids stay equal to HF's.
    if (add_special_tokens && added > 0)
      params.max_length = params.max_length >= added ? params.max_length - added : std::numeric_limits<size_t>::max();
    Truncate(a, b ? &*b : nullptr, params);
  }
  std::vector<Segment> segments;
  segments.push_back({std::move(a), {}});
  if (b) segments.push_back({std::move(*b), {}});
  for (size_t i = 0; i < segments.size(); ++i) segments[i].type_ids.assign(segments[i].ids.size(), i);
  if (post_processor_) post_processor_->ProcessSegments(segments, add_special_tokens);
  Encoding e;
  for (const Segment& s : segments) {
    e.ids.insert(e.ids.end(), s.ids.begin(), s.ids.end());
    e.type_ids.insert(e.type_ids.end(), s.type_ids.begin(), s.type_ids.end());
  }
  e.attention_mask.assign(e.ids.size(), 1);
  if (options.padding && options.padding->fixed_length)
    Pad(e, PadLength(*options.padding->fixed_length, *options.padding), *options.padding);
  else if (options.padding)
    Pad(e, PadLength(e.ids.size(), *options.padding), *options.padding);
  return e;
}

// HF do_tokenize with truncation set: tokenize_with_limit keeps whole splits, from the cut side,
// up to the first regular split that brings the count to max_length (added-token splits count
// but never end it). The exact cut comes later; this one decides the lengths it sees.
std::vector<uint32_t> HfTokenizer::EncodeLimited(std::string_view text, const TruncationParams& params) const {
  std::vector<SplitEnd> ends;
  std::vector<uint32_t> ids;
  EncodeSequence(text, ids, &ends);
  size_t total = 0;
  if (!params.left) {
    for (size_t i = 0; i < ends.size(); ++i) {
      total = ends[i].end;
      if (!ends[i].added && total >= params.max_length) {
        ids.resize(total);
        break;
      }
    }
    return ids;
  }
  for (size_t i = ends.size(); i-- > 0;) {
    const size_t begin = i == 0 ? 0 : ends[i - 1].end;
    total += ends[i].end - begin;
    if (!ends[i].added && total >= params.max_length) {
      ids.erase(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(begin));
      break;
    }
  }
  return ids;
}

std::vector<Encoding> HfTokenizer::EncodeBatch(const std::vector<EncodeInput>& inputs, bool add_special_tokens,
                                               const EncoderOptions& options) const {
  std::vector<Encoding> out;
  out.reserve(inputs.size());
  for (const EncodeInput& in : inputs) {
    const auto& t = options.truncation;
    // As HF: every sequence is cut early except the first under OnlySecond.
    const auto encode = [&](std::string_view text, bool first) {
      const bool limit = t && !(first && t->strategy == TruncationStrategy::kOnlySecond);
      if (limit) return EncodeLimited(text, *t);
      std::vector<uint32_t> ids;
      EncodeSequence(text, ids);
      return ids;
    };
    std::optional<std::vector<uint32_t>> pair;
    if (in.pair) pair = encode(*in.pair, false);
    out.push_back(PostProcess(encode(in.text, true), std::move(pair), add_special_tokens, options));
  }
  // BatchLongest pads every row to the longest (Fixed rows are padded already).
  if (options.padding && !options.padding->fixed_length && !out.empty()) {
    size_t longest = 0;
    for (const Encoding& e : out) longest = std::max(longest, e.ids.size());
    for (Encoding& e : out) Pad(e, PadLength(longest, *options.padding), *options.padding);
  }
  return out;
}

}  // namespace triton_studio::tok
