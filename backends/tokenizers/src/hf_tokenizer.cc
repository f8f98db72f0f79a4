// The Tokenizer assembled from tokenizer.json (see hf_tokenizer.h): encode and decode through HF's
// pipeline.
#include "hf_tokenizer.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_set>

#include "input_limits.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

TruncationParams ParseTruncation(const Json& node) {
  const std::string path = "truncation";
  AllowOnlyKeys(node, path, {"direction", "max_length", "strategy", "stride"});
  const std::string right = "Right", longest = "LongestFirst";
  const std::string direction = GetString(node, "direction", path, &right);
  if (direction != "Right" && direction != "Left") FieldError(path + ".direction", "expected Left or Right");
  const std::string strategy = GetString(node, "strategy", path, &longest);
  TruncationParams t;
  if (strategy == "LongestFirst") {
    t.strategy = TruncationStrategy::kLongestFirst;
  } else if (strategy == "OnlyFirst") {
    t.strategy = TruncationStrategy::kOnlyFirst;
  } else if (strategy == "OnlySecond") {
    t.strategy = TruncationStrategy::kOnlySecond;
  } else {
    FieldError(path + ".strategy", "unsupported '" + strategy + "' (LongestFirst, OnlyFirst, OnlySecond)");
  }
  const Json* max = Find(node, "max_length");
  if (max == nullptr || !max->is_number_unsigned()) FieldError(path + ".max_length", "expected a positive integer");
  t.max_length = max->get<size_t>();
  t.stride = GetUint(node, "stride", path, 0);
  t.left = direction == "Left";
  return t;
}

PaddingParams ParsePadding(const Json& node) {
  const std::string path = "padding";
  AllowOnlyKeys(node, path, {"strategy", "direction", "pad_to_multiple_of", "pad_id", "pad_type_id", "pad_token"});
  PaddingParams p;
  const Json* strategy = Find(node, "strategy");
  if (strategy != nullptr && strategy->is_object() && strategy->contains("Fixed")) {
    const Json& n = (*strategy)["Fixed"];
    if (!n.is_number_unsigned()) FieldError(path + ".strategy.Fixed", "expected a length");
    p.fixed_length = n.get<size_t>();
  } else if (strategy != nullptr && !(strategy->is_string() && strategy->get<std::string>() == "BatchLongest")) {
    FieldError(path + ".strategy", "expected \"BatchLongest\" or {\"Fixed\": n}");
  }
  const std::string right = "Right";
  const std::string direction = GetString(node, "direction", path, &right);
  if (direction != "Right" && direction != "Left") FieldError(path + ".direction", "expected Left or Right");
  p.left = direction == "Left";
  p.multiple_of = GetUint(node, "pad_to_multiple_of", path, 0);
  const uint64_t pad_id = GetUint(node, "pad_id", path, 0);
  if (pad_id > UINT32_MAX) FieldError(path + ".pad_id", "expected an id below 2^32 (a u32)");
  p.pad_id = static_cast<uint32_t>(pad_id);
  const uint64_t pad_type_id = GetUint(node, "pad_type_id", path, 0);
  if (pad_type_id > UINT32_MAX) FieldError(path + ".pad_type_id", "expected a type id below 2^32 (a u32)");
  p.pad_type_id = static_cast<uint32_t>(pad_type_id);
  return p;
}

}  // namespace

HfTokenizer::HfTokenizer(const TokenizerJson& file) {
  const Json& root = file.root;
  if (!root.is_object()) FieldError("(root)", "expected a JSON object");
  AllowOnlyKeys(root, "(root)",
                {"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "model",
                 "post_processor", "decoder"});
  if (const Json* n = Find(root, "normalizer")) normalizer_ = MakeNormalizer(*n, "normalizer");
  if (const Json* p = Find(root, "pre_tokenizer")) pre_tokenizer_ = MakePreTokenizer(*p, "pre_tokenizer");
  const Json* model = Find(root, "model");
  if (model == nullptr) FieldError("model", "missing");
  model_ = MakeModel(*model, "model", file);
  byte_level_ = pre_tokenizer_ && pre_tokenizer_->ByteLevelOutput();
  if (const Json* p = Find(root, "post_processor")) post_processor_ = MakePostProcessor(*p, "post_processor");
  decoder_ = DecoderChain::Make(Find(root, "decoder"), "decoder");
  if (const Json* t = Find(root, "truncation")) truncation_ = ParseTruncation(*t);
  if (const Json* p = Find(root, "padding")) padding_ = ParsePadding(*p);
  if (const Json* a = Find(root, "added_tokens")) added_.Load(*a, "added_tokens", normalizer_.get(), model_->vocab());
  // EncodeFlat's shortcuts.
  if (post_processor_) FindWrap();
  scan_ = pre_tokenizer_ ? pre_tokenizer_->AsScanner() : PreTokenizer::AsScan{nullptr, true};

  // Vocabulary size with added tokens: the union of both vocabularies by token (HF get_vocab(true)).
  vocab_size_ = model_->vocab().Size();
  for (const AddedToken& t : added_.tokens())
    if (!model_->vocab().Find(t.content)) ++vocab_size_;

  uint32_t id_limit = model_->vocab().IdLimit();
  for (const AddedToken& t : added_.tokens()) id_limit = std::max(id_limit, t.id + 1);
  decode_kinds_.assign(id_limit, kUnknown);
  for (uint32_t id = 0; id < id_limit; ++id) {
    if (const std::string* token = TokenForDecode(id))
      decode_kinds_[id] = added_.IsSpecialText(*token) ? kSpecial : kRegular;
  }
  decoder_.Precompute(id_limit, [this](uint32_t id) { return TokenForDecode(id); });

  for (const char* eos : {"<|endoftext|>", "</s>", "<|end_of_text|>", "<|eot_id|>", "[SEP]"}) {
    if ((eos_id_ = TokenToId(eos))) break;
  }
  if (padding_) {
    pad_id_ = padding_->pad_id;
  } else {
    for (const char* pad : {"[PAD]", "<pad>", "<|pad|>"}) {
      if ((pad_id_ = TokenToId(pad))) break;
    }
  }
}

std::optional<uint32_t> HfTokenizer::TokenToId(std::string_view token) const {
  if (auto id = added_.IdOf(token)) return id;
  return model_->vocab().Find(token);
}

std::optional<std::string> HfTokenizer::IdToToken(uint32_t id) const {
  if (const AddedToken* t = added_.ById(id)) return t->decode_form;
  if (const std::string* s = model_->vocab().Token(id)) return *s;
  return std::nullopt;
}

void HfTokenizer::EncodeText(std::string_view text, bool at_input_start, std::vector<uint32_t>& ids,
                             std::vector<SplitEnd>* split_ends, FlatBatch* batch) const {
  // Per-thread scratch: a short encode allocated four buffers (8% of GPT-2's in malloc/free).
  struct Scratch {
    std::string normalized;
    std::vector<AddedSplit> splits;
    Pieces pieces;
  };
  thread_local Scratch scratch;
  std::string_view normalized = text;
  if (normalizer_ && !normalizer_->Keeps(text)) {
    scratch.normalized.assign(text);
    normalizer_->Normalize(scratch.normalized);
    normalized = scratch.normalized;
  }
  std::vector<AddedSplit>& splits = scratch.splits;
  splits.clear();
  added_.Split(normalized, /*normalized=*/true, splits);
  Pieces& pieces = scratch.pieces;
  for (const AddedSplit& s : splits) {
    if (s.id) {
      AddId(*s.id, ids, batch);
      if (split_ends) split_ends->push_back({ids.size(), true});
      continue;
    }
    pieces.text = normalized.substr(s.begin, s.end - s.begin);
    pieces.ranges.assign(1, {0, static_cast<uint32_t>(pieces.text.size())});
    pieces.at_input_start = at_input_start && s.begin == 0;
    if (pre_tokenizer_) pre_tokenizer_->PreTokenize(pieces);
    if (split_ends == nullptr) {
      AddSpan(pieces, ids, batch);
      continue;
    }
    for (const auto& [begin, end] : pieces.ranges) {
      if (end <= begin) continue;
      model_->Tokenize(pieces.text.substr(begin, end - begin), byte_level_, ids);
      split_ends->push_back({ids.size(), false});
    }
  }
  // The scratch keeps its buffers between calls, but not a huge input's.
  constexpr size_t kKeep = 1 << 20;
  if (pieces.rewritten.capacity() > kKeep || scratch.normalized.capacity() > kKeep) scratch = Scratch();
}

void HfTokenizer::EncodeSequence(std::string_view input, std::vector<uint32_t>& ids,
                                 std::vector<SplitEnd>* split_ends, FlatBatch* batch) const {
  if (input.size() > UINT32_MAX / 2) throw TokenizerError("Encode: input larger than 2 GiB is not supported");
  // HF takes Rust strings, which are valid UTF-8: callers holding bytes convert them lossily
  // first (Python's errors="replace", JS TextDecoder), so invalid sequences become U+FFFD here.
  std::string repaired;
  std::string_view text = input;
  if (!utf8::IsValid(input)) {
    utf8::AppendLossy(input, repaired);
    text = repaired;
  }
  // Room for about a token per 3 bytes, growing geometrically: an appending batch caller's buffer
  // must not be reallocated to an exact size per text.
  const size_t room = ids.size() + text.size() / 3 + 4;
  if (batch == nullptr && room > ids.capacity()) ids.reserve(std::max(room, 2 * ids.capacity()));
  thread_local std::vector<AddedSplit> splits;  // a malloc and free per call otherwise
  splits.clear();
  added_.Split(text, /*normalized=*/false, splits);
  for (const AddedSplit& s : splits) {
    if (s.id) {
      AddId(*s.id, ids, batch);
      if (split_ends) split_ends->push_back({ids.size(), true});
    } else {
      EncodeText(text.substr(s.begin, s.end - s.begin), s.begin == 0, ids, split_ends, batch);
    }
  }
}

std::vector<uint32_t> HfTokenizer::Encode(std::string_view input, bool add_special_tokens) const {
  std::vector<uint32_t> ids;
  EncodeAppend(input, add_special_tokens, ids);
  return ids;
}

void HfTokenizer::EncodeAppend(std::string_view input, bool add_special_tokens, std::vector<uint32_t>& ids) const {
  // Truncation and padding (tokenizer.json's own) take the encoder pipeline: one implementation.
  if (truncation_ || padding_) {
    const std::vector<uint32_t> row = EncodeBatch({{input, std::nullopt}}, add_special_tokens, EncoderDefaults())[0].ids;
    ids.insert(ids.end(), row.begin(), row.end());
    return;
  }
  if (!(add_special_tokens && post_processor_)) return EncodeSequence(input, ids);
  // The post-processor works on a whole sequence: this text's ids alone, then appended.
  thread_local std::vector<uint32_t> own;
  own.clear();
  EncodeSequence(input, own);
  post_processor_->Process(own);
  ids.insert(ids.end(), own.begin(), own.end());
  if (own.capacity() > (1 << 18)) own = {};  // a huge input's buffer is not kept
}

void HfTokenizer::FindWrap() {
  // Markers no vocabulary reaches stand for a sequence of none, one and two ids.
  constexpr uint32_t kA = 0xFFFFFFF0u, kB = 0xFFFFFFF1u;
  std::vector<uint32_t> none, one = {kA}, two = {kA, kB};
  try {
    post_processor_->Process(none);
    post_processor_->Process(one);
    post_processor_->Process(two);
  } catch (const std::exception&) {
    return;  // a processor that looks at the ids: every text goes through it
  }
  const auto a = std::find(one.begin(), one.end(), kA);
  if (a == one.end()) return;
  std::vector<uint32_t> prefix(one.begin(), a), suffix(a + 1, one.end());
  std::vector<uint32_t> wrapped_none = prefix, wrapped_two = prefix;
  wrapped_none.insert(wrapped_none.end(), suffix.begin(), suffix.end());
  wrapped_two.insert(wrapped_two.end(), {kA, kB});
  wrapped_two.insert(wrapped_two.end(), suffix.begin(), suffix.end());
  if (none != wrapped_none || two != wrapped_two) return;
  wrap_ = {std::move(prefix), std::move(suffix)};
}

void HfTokenizer::AddSpan(Pieces& pieces, std::vector<uint32_t>& ids, FlatBatch* batch) const {
  if (batch == nullptr) return model_->TokenizePieces(pieces.text, pieces.ranges, byte_level_, ids);
  const char* const input = batch->input.data();
  if (pieces.text.data() < input || pieces.text.data() + pieces.text.size() > input + batch->input.size()) {
    Flush(*batch, ids);  // text of its own, which the next text overwrites: now
    return model_->TokenizePieces(pieces.text, pieces.ranges, byte_level_, ids);
  }
  const size_t count = pieces.ranges.size();
  if (count != 0) std::memcpy(static_cast<void*>(batch->Room(count)), pieces.ranges.data(), count * sizeof(Range));
  batch->AddSpan(pieces.text, count);
}

bool HfTokenizer::CollectScanned(std::string_view text, FlatBatch& batch) const {
  // Room is a range per byte (8 bytes a byte, zero-filled once): a text over 1 MiB goes through
  // the pre-tokenizer, whose ranges grow with its pieces.
  constexpr size_t kMaxInPlace = size_t{1} << 20;
  if (text.size() > kMaxInPlace || !utf8::IsValid(text) || (normalizer_ && !normalizer_->Keeps(text))) return false;
  const auto add_span = [&](std::string_view span) {
    Range* const out = batch.Room(span.size() + PreTokenizer::kScanIntoSlack);
    size_t count = 1;
    if (scan_.scan != nullptr) {
      count = scan_.scan(span, out);
    } else {
      out[0] = {0, static_cast<uint32_t>(span.size())};
    }
    batch.AddSpan(span, count);
  };
  // As EncodeSequence and EncodeText split: added tokens in the raw text, then in each part's
  // normalized text, which is the part itself here.
  thread_local std::vector<AddedSplit> raw, normalized;
  raw.clear();
  added_.Split(text, /*normalized=*/false, raw);
  for (const AddedSplit& r : raw) {
    if (r.id) {
      batch.AddId(*r.id);
      continue;
    }
    const std::string_view part = text.substr(r.begin, r.end - r.begin);
    if (!added_.MatchesNormalized()) {
      add_span(part);
      continue;
    }
    normalized.clear();
    added_.Split(part, /*normalized=*/true, normalized);
    for (const AddedSplit& n : normalized) {
      if (n.id) {
        batch.AddId(*n.id);
      } else {
        add_span(part.substr(n.begin, n.end - n.begin));
      }
    }
  }
  return true;
}

void HfTokenizer::Flush(FlatBatch& batch, std::vector<uint32_t>& ids) const {
  thread_local std::vector<Model::Span> spans;
  thread_local std::vector<size_t> after;  // after[k]: ids.size() after the first k items
  const size_t n = batch.items.size();
  after.resize(n + 1);
  after[0] = ids.size();
  for (size_t k = 0; k < n;) {
    if (const auto& id = batch.items[k].id) {
      ids.push_back(*id);
      after[++k] = ids.size();
      continue;
    }
    spans.clear();
    const size_t first = k;
    for (; k < n && !batch.items[k].id; ++k) {
      const FlatBatch::Item& item = batch.items[k];
      spans.push_back({item.text, batch.ranges.data() + item.first, item.count});
    }
    model_->TokenizeSpans(spans.data(), spans.size(), byte_level_, ids, after.data() + first + 1);
  }
  for (const auto& [text, items] : batch.text_ends) batch.ends[text] = after[items];
  batch.Clear();
}

void HfTokenizer::EncodeFlat(const std::vector<std::string_view>& texts, bool add_special_tokens,
                             std::vector<uint32_t>& ids, std::vector<size_t>& ends) const {
  // Truncation, padding and post-processing other than a fixed wrap work on one text's ids at a time.
  const bool wrap = add_special_tokens && post_processor_;
  if (truncation_ || padding_ || (wrap && !wrap_)) {
    for (const std::string_view text : texts) {
      EncodeAppend(text, add_special_tokens, ids);
      ends.push_back(ids.size());
    }
    return;
  }
  // Flushed every so many words or bytes, so that the model's buffers stay small enough to keep
  // between calls (a flush costs about what one text's call did).
  constexpr size_t kBatchWords = 4096, kBatchBytes = 32 << 10;
  const bool scanned = scan_.scan != nullptr || scan_.identity;
  thread_local FlatBatch batch;
  batch.Clear();  // what a call that threw left
  const size_t first = ends.size();
  ends.resize(first + texts.size());
  batch.ends = ends.data() + first;
  for (size_t t = 0; t < texts.size(); ++t) {
    batch.input = texts[t];
    if (wrap) for (const uint32_t id : wrap_->first) AddId(id, ids, &batch);
    if (!scanned || !CollectScanned(texts[t], batch)) EncodeSequence(texts[t], ids, nullptr, &batch);
    if (wrap) for (const uint32_t id : wrap_->second) AddId(id, ids, &batch);
    batch.text_ends.push_back({t, batch.items.size()});
    if (batch.words >= kBatchWords || batch.bytes >= kBatchBytes) Flush(batch, ids);
  }
  Flush(batch, ids);
}

const std::string* HfTokenizer::TokenForDecode(uint32_t id) const {
  if (const AddedToken* t = added_.ById(id)) return &t->decode_form;
  return model_->vocab().Token(id);
}

void HfTokenizer::ThrowUnknownId(uint32_t id) const {
  throw TokenizerError("Decode: id " + std::to_string(id) + " is not in the vocabulary (size " +
                       std::to_string(vocab_size_) + ")");
}

std::string HfTokenizer::Decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const {
  // Copy the ids only when some are skipped (decoding with special tokens kept never copies).
  const auto decodes = [&](uint32_t id) { return Decodes(id, skip_special_tokens); };
  std::vector<uint32_t> read;
  const std::vector<uint32_t>* decoded = &ids;
  if (!std::all_of(ids.begin(), ids.end(), decodes)) {
    std::copy_if(ids.begin(), ids.end(), std::back_inserter(read), decodes);
    decoded = &read;
  }
  DecoderChain::State state = decoder_.NewState();
  std::string text;
  decoder_.Push(state, decoded->data(), decoded->size(), text);
  decoder_.Finish(state, text);
  return text;
}

std::unique_ptr<Tokenizer> Tokenizer::FromJson(std::string_view json) {
  CheckTokenizerJsonLimits(json);
  try {
    return std::make_unique<HfTokenizer>(ParseTokenizerJson(json));
  } catch (const nlohmann::json::exception& e) {
    // Type mismatches the field readers did not anticipate still name a cause, never crash.
    throw TokenizerError(std::string("tokenizer.json: ") + e.what());
  }
}

std::unique_ptr<Tokenizer> Tokenizer::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TokenizerError("cannot open tokenizer file '" + path + "' (check the path)");
  // Refused before it is read: the size is known without reading.
  in.seekg(0, std::ios::end);
  const auto size = static_cast<long long>(in.tellg());
  in.seekg(0, std::ios::beg);
  if (size > static_cast<long long>(kMaxTokenizerJsonBytes))
    throw TokenizerError(path + ": the file is " + std::to_string(size) + " bytes, over the limit of " +
                         std::to_string(kMaxTokenizerJsonBytes) + " for a tokenizer.json");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw TokenizerError("cannot read tokenizer file '" + path + "'");
  try {
    return FromJson(buf.str());
  } catch (const TokenizerError& e) {
    throw TokenizerError(path + ": " + e.what());
  }
}

}  // namespace triton_studio::tok
