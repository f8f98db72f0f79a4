// In-flight batching over llama.cpp (see inflight_engine.h): each active request one sequence,
// every step one llama_batch.
#include "inflight_engine.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <thread>

#include "ggml-backend.h"
#include "llama.h"

namespace triton_studio::llama_cpp {

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int DefaultThreads(int cpus) { return std::max(1, cpus - 1); }

struct InflightEngine::Request {
  uint64_t id = 0;
  int sequence = 0;
  std::vector<int32_t> prompt;
  GenerationParams params;
  std::vector<int64_t> generated;
  int32_t position = 0;      // next KV position
  bool prefilled = false;    // the prompt has been decoded
  int32_t logits_index = -1; // its row of logits in the current batch
  llama_sampler* sampler = nullptr;

  ~Request() {
    if (sampler != nullptr) llama_sampler_free(sampler);
  }

  // True when `next` would complete one of `words` after what was generated.
  bool Completes(const Words& words, int64_t next) const {
    for (const auto& w : words) {
      if (w.empty() || w.back() != next || w.size() - 1 > generated.size()) continue;
      if (std::equal(w.begin(), w.end() - 1, generated.end() - static_cast<std::ptrdiff_t>(w.size() - 1))) return true;
    }
    return false;
  }
  bool EndsWithStopWord() const {
    for (const auto& w : params.stop_words) {
      if (!w.empty() && w.size() <= generated.size() &&
          std::equal(w.begin(), w.end(), generated.end() - static_cast<std::ptrdiff_t>(w.size())))
        return true;
    }
    return false;
  }
};

namespace {

// llama.cpp logs everything at INFO to stderr by default; only its warnings and errors matter in a
// server's log.
void QuietLog(ggml_log_level level, const char* text, void* /*user*/) {
  if (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) fputs(text, stderr);
}

// Once per process: ggml finds its CPU backend only among the libraries of the folder it is
// told, and llama.cpp's global state is set up once.
void InitializeOnce(const std::string& backends_dir) {
  static std::once_flag once;
  std::call_once(once, [&] {
    llama_log_set(QuietLog, nullptr);
    ggml_backend_load_all_from_path(backends_dir.c_str());
    llama_backend_init();
  });
}

}  // namespace

std::string DirectoryOfThisLibrary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&DirectoryOfThisLibrary), &info) == 0 || info.dli_fname == nullptr) return ".";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

InflightEngine::InflightEngine(const EngineOptions& options) {
  if (options.max_sequences < 1 || options.max_sequences > 256) {
    throw std::runtime_error("max_sequences must be between 1 and 256, got " + std::to_string(options.max_sequences));
  }
  if (options.context_length < 16) {
    throw std::runtime_error("context_length must be at least 16, got " + std::to_string(options.context_length));
  }
  InitializeOnce(options.backends_dir);
  if (ggml_backend_dev_count() == 0) {
    throw std::runtime_error("llama.cpp found no compute backend in " + options.backends_dir +
                             " (libggml-cpu-*.so must sit beside libtriton_llama_cpp.so; rebuild the repository)");
  }
  llama_model_params model_params = llama_model_default_params();
  model_params.n_gpu_layers = 0;
  model_ = llama_model_load_from_file(options.model_path.c_str(), model_params);
  if (model_ == nullptr) {
    throw std::runtime_error("llama.cpp could not load the GGUF file " + options.model_path +
                             " (missing or not a GGUF model llama.cpp supports; run npm run setup to fetch it)");
  }
  const int threads = options.threads > 0 ? options.threads : DefaultThreads(UsableCpus());
  llama_context_params ctx_params = llama_context_default_params();
  ctx_params.n_seq_max = static_cast<uint32_t>(options.max_sequences);
  ctx_params.n_ctx = static_cast<uint32_t>(options.context_length * options.max_sequences);
  ctx_params.kv_unified = false;  // each sequence owns context_length cells: a long one cannot starve the rest
  ctx_params.n_batch = static_cast<uint32_t>(options.context_length);  // any admissible prompt fits one step
  ctx_params.n_threads = threads;
  ctx_params.n_threads_batch = threads;
  ctx_params.no_perf = true;
  context_ = llama_init_from_model(model_, ctx_params);
  if (context_ == nullptr) {
    llama_model_free(model_);
    throw std::runtime_error("llama.cpp could not create a context of " + std::to_string(options.max_sequences) + " x " +
                             std::to_string(options.context_length) + " tokens (lower max_sequences or context_length)");
  }
  // llama.cpp rounds a sequence's cells up (to 256); the request limit is what was asked for.
  context_length_ = std::min<int>(options.context_length, static_cast<int>(llama_n_ctx_seq(context_)));
  batch_capacity_ = static_cast<int>(llama_n_batch(context_));
  vocab_size_ = llama_vocab_n_tokens(llama_model_get_vocab(model_));
  for (int s = options.max_sequences - 1; s >= 0; --s) free_sequences_.push_back(s);
}

InflightEngine::~InflightEngine() {
  requests_.clear();
  if (context_ != nullptr) llama_free(context_);
  if (model_ != nullptr) llama_model_free(model_);
}

void InflightEngine::Validate(const std::vector<int32_t>& prompt, const GenerationParams& params) const {
  if (prompt.empty()) throw RequestError("empty prompt: the model needs at least one input token");
  for (int32_t t : prompt) {
    if (t < 0 || t >= vocab_size_) {
      throw RequestError("input token " + std::to_string(t) + " is outside the model's vocabulary of " +
                         std::to_string(vocab_size_) + " tokens (was the prompt tokenized for another model?)");
    }
  }
  if (params.max_new_tokens < 0) throw RequestError("request_output_len must not be negative");
  const int64_t needed = static_cast<int64_t>(prompt.size()) + params.max_new_tokens;
  if (needed > context_length_) {
    throw RequestError("prompt (" + std::to_string(prompt.size()) + " tokens) + request_output_len (" +
                       std::to_string(params.max_new_tokens) + ") exceeds the context of " +
                       std::to_string(context_length_) +
                       " tokens per request: shorten the prompt, ask for fewer tokens, or raise the model's "
                       "context_length parameter");
  }
  if (params.top_p <= 0 || params.top_p > 1) throw RequestError("runtime_top_p must be in (0, 1]");
  if (params.top_k < 0) throw RequestError("runtime_top_k must not be negative");
}

void InflightEngine::Add(uint64_t id, std::vector<int32_t> prompt, GenerationParams params) {
  if (free_sequences_.empty()) throw std::logic_error("InflightEngine::Add without a free sequence");
  auto r = std::make_unique<Request>();
  r->id = id;
  r->sequence = free_sequences_.back();
  free_sequences_.pop_back();
  r->prompt = std::move(prompt);
  r->params = std::move(params);
  const GenerationParams& p = r->params;
  r->sampler = llama_sampler_chain_init(llama_sampler_chain_default_params());
  if (!p.sampling || p.temperature <= 0 || p.top_k == 1) {
    llama_sampler_chain_add(r->sampler, llama_sampler_init_greedy());
  } else {
    if (p.top_k > 0) llama_sampler_chain_add(r->sampler, llama_sampler_init_top_k(p.top_k));
    if (p.top_p < 1) llama_sampler_chain_add(r->sampler, llama_sampler_init_top_p(p.top_p, 1));
    llama_sampler_chain_add(r->sampler, llama_sampler_init_temp(p.temperature));
    llama_sampler_chain_add(r->sampler, llama_sampler_init_dist(static_cast<uint32_t>(p.seed ^ (p.seed >> 32))));
  }
  requests_.emplace(id, std::move(r));
}

void InflightEngine::Free(uint64_t id) {
  const auto found = requests_.find(id);
  if (found == requests_.end()) return;
  const int sequence = found->second->sequence;
  llama_memory_seq_rm(llama_get_memory(context_), sequence, -1, -1);
  free_sequences_.push_back(sequence);
  requests_.erase(found);
}

void InflightEngine::Remove(uint64_t id) { Free(id); }

int InflightEngine::CellsOf(int sequence) const {
  return static_cast<int>(llama_memory_seq_pos_max(llama_get_memory(context_), sequence)) + 1;
}

std::optional<int> InflightEngine::SequenceOf(uint64_t id) const {
  const auto found = requests_.find(id);
  if (found == requests_.end()) return std::nullopt;
  return found->second->sequence;
}

std::vector<int32_t> InflightEngine::Tokenize(const std::string& text, bool add_special) const {
  const llama_vocab* vocab = llama_model_get_vocab(model_);
  std::vector<int32_t> tokens(text.size() + 8);
  int32_t n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                             static_cast<int32_t>(tokens.size()), add_special, /*parse_special=*/true);
  if (n < 0) {
    tokens.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                       static_cast<int32_t>(tokens.size()), add_special, true);
  }
  tokens.resize(static_cast<size_t>(std::max(n, 0)));
  return tokens;
}

std::string InflightEngine::Detokenize(const std::vector<int32_t>& tokens) const {
  const llama_vocab* vocab = llama_model_get_vocab(model_);
  std::string text(tokens.size() * 16 + 16, '\0');
  int32_t n = llama_detokenize(vocab, tokens.data(), static_cast<int32_t>(tokens.size()), text.data(),
                               static_cast<int32_t>(text.size()), /*remove_special=*/false, /*unparse_special=*/true);
  if (n < 0) {
    text.resize(static_cast<size_t>(-n));
    n = llama_detokenize(vocab, tokens.data(), static_cast<int32_t>(tokens.size()), text.data(),
                         static_cast<int32_t>(text.size()), false, true);
  }
  text.resize(static_cast<size_t>(std::max(n, 0)));
  return text;
}

std::optional<int32_t> InflightEngine::Sample(Request& r, int32_t logits_index) {
  float* logits = llama_get_logits_ith(context_, logits_index);
  for (size_t t = 0; t < r.params.logit_bias.size(); ++t) logits[t] += r.params.logit_bias[t];
  // Bad words: the token that would complete one is never chosen.
  for (const auto& w : r.params.bad_words) {
    if (!w.empty() && w.back() >= 0 && w.back() < vocab_size_ && r.Completes({w}, w.back())) logits[w.back()] = -INFINITY;
  }
  const llama_token token = llama_sampler_sample(r.sampler, context_, logits_index);
  if (logits[token] == -INFINITY) return std::nullopt;  // every candidate banned
  return token;
}

std::vector<StepEvent> InflightEngine::Step() {
  std::vector<StepEvent> events;
  last_rows_ = 0;
  last_tokens_ = 0;
  // Requests asking for no tokens end before any work.
  std::vector<uint64_t> empty;
  for (auto& [id, r] : requests_) {
    if (r->params.max_new_tokens == 0) empty.push_back(id);
  }
  for (uint64_t id : empty) {
    events.push_back({id, std::nullopt, true});
    Free(id);
  }
  if (requests_.empty()) return events;

  // Running requests first (one token each), then joining prompts while the batch has room: a
  // prompt that does not fit waits for the next step.
  int tokens = 0;
  std::vector<Request*> rows;
  for (auto& [id, r] : requests_) {
    if (r->prefilled) rows.push_back(r.get()), tokens += 1;
  }
  for (auto& [id, r] : requests_) {
    if (r->prefilled) continue;
    const int n = static_cast<int>(r->prompt.size());
    if (tokens + n > batch_capacity_ && !rows.empty()) continue;
    rows.push_back(r.get());
    tokens += n;
  }
  llama_batch batch = llama_batch_init(tokens, 0, 1);
  for (Request* r : rows) {
    auto add = [&](llama_token token, bool logits) {
      const int i = batch.n_tokens++;
      batch.token[i] = token;
      batch.pos[i] = r->position++;
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = r->sequence;
      batch.logits[i] = logits;
      if (logits) r->logits_index = i;
    };
    if (!r->prefilled) {
      for (size_t i = 0; i < r->prompt.size(); ++i) add(r->prompt[i], i + 1 == r->prompt.size());
      r->prefilled = true;
    } else {
      add(static_cast<llama_token>(r->generated.back()), true);
    }
  }
  const int32_t status = llama_decode(context_, batch);
  llama_batch_free(batch);
  last_rows_ = static_cast<int>(rows.size());
  last_tokens_ = tokens;
  if (status != 0) {
    throw std::runtime_error("llama_decode failed with status " + std::to_string(status) + " over " +
                             std::to_string(rows.size()) + " requests");
  }

  const llama_vocab* vocab = llama_model_get_vocab(model_);
  for (Request* r : rows) {
    const uint64_t id = r->id;
    const std::optional<int32_t> token = Sample(*r, r->logits_index);
    // The request's end id ends it, and so do the model's own end-of-generation tokens (a chat
    // model's end of turn), as llama.cpp's own servers do: a tokenizer guessing another end id
    // cannot make the model talk past its turn.
    const bool ends = !token || (r->params.end_id && *token == *r->params.end_id) || llama_vocab_is_eog(vocab, *token);
    if (ends) {
      events.push_back({id, std::nullopt, true});
      Free(id);
      continue;
    }
    r->generated.push_back(*token);
    const bool finished = static_cast<int64_t>(r->generated.size()) >= r->params.max_new_tokens || r->EndsWithStopWord();
    events.push_back({id, *token, finished});
    if (finished) Free(id);
  }
  return events;
}

}  // namespace triton_studio::llama_cpp
