// In-flight batching over llama.cpp, with no Triton in it (so it is unit-tested alone): every
// active request is one llama.cpp sequence with its own id, and each Step() decodes all of them in
// one llama_batch (a request added since the last step joins with its whole prompt); a request
// that finishes or is cancelled leaves at once and its KV cells are freed. TensorRT-LLM's
// per-request controls: output length, end id, stop / bad words, temperature / top-k / top-p and
// a seed (greedy when no sampling is asked for, as TensorRT-LLM's default top_k = 1 is).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct llama_model;
struct llama_context;
struct llama_sampler;

namespace triton_studio::llama_cpp {

using Words = std::vector<std::vector<int64_t>>;

struct EngineOptions {
  std::string model_path;    // the GGUF file
  std::string backends_dir;  // folder of libggml-cpu-*.so (loaded before the model)
  int threads = 0;           // 0: DefaultThreads(UsableCpus())
  int max_sequences = 4;     // requests decoded together (llama.cpp sequences)
  int context_length = 1024; // KV cells per sequence (prompt + output)
};

// The CPUs this process may run on (its affinity mask: a container's cpuset), at least 1.
int UsableCpus();
// ggml's threads spin-wait for one another at every step, so one without a core of its own stalls
// them all (35-60x slower on a busy 2-core machine): one fewer than the CPUs, at least 1, leaves a
// core for Triton, the tokenizer and the orchestrator.
int DefaultThreads(int cpus);

struct GenerationParams {
  int64_t max_new_tokens = 16;
  std::optional<int64_t> end_id;  // ends the answer, not emitted (as do the model's end-of-generation tokens)
  Words stop_words;               // a completed stop word ends the answer (emitted)
  Words bad_words;                // never completed
  std::vector<float> logit_bias;  // empty, or one value per vocabulary token added to its logit
  float temperature = 0;          // <= 0: greedy
  int top_k = 0;                  // 0: all
  float top_p = 1;                // 1: all
  uint64_t seed = 0;
  bool sampling = false;          // any of temperature / top_k / top_p was sent
};

// What one step did for one request.
struct StepEvent {
  uint64_t id = 0;
  std::optional<int32_t> token;  // the token generated at this step (none when it ended without one)
  bool finished = false;
};

// A request the engine refuses (too long a prompt, a token outside the vocabulary...): the
// message says what to change.
class RequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class InflightEngine {
 public:
  explicit InflightEngine(const EngineOptions& options);  // throws std::runtime_error naming the fix
  ~InflightEngine();
  InflightEngine(const InflightEngine&) = delete;
  InflightEngine& operator=(const InflightEngine&) = delete;

  // Throws RequestError when the request can never run; call before Add.
  void Validate(const std::vector<int32_t>& prompt, const GenerationParams& params) const;
  bool HasFreeSequence() const { return !free_sequences_.empty(); }
  // Joins at the next Step (needs a free sequence: HasFreeSequence()).
  void Add(uint64_t id, std::vector<int32_t> prompt, GenerationParams params);
  // Leaves now; its KV cells are freed. Unknown ids are ignored.
  void Remove(uint64_t id);
  // One llama_decode over every active request. Finished requests have left when it returns.
  std::vector<StepEvent> Step();

  size_t Active() const { return requests_.size(); }
  // Rows (sequences) in the last Step's batch, and its tokens: what a step cost.
  int last_rows() const { return last_rows_; }
  int last_tokens() const { return last_tokens_; }
  int context_length() const { return context_length_; }
  int vocabulary_size() const { return vocab_size_; }
  // KV cells a sequence holds (highest position + 1; 0 when empty): freed means 0.
  int CellsOf(int sequence) const;
  std::optional<int> SequenceOf(uint64_t id) const;
  // llama.cpp's own tokenizer and detokenizer for this model (the reference the native tokenizer
  // steps are checked against).
  std::vector<int32_t> Tokenize(const std::string& text, bool add_special) const;
  std::string Detokenize(const std::vector<int32_t>& tokens) const;

 private:
  struct Request;
  std::optional<int32_t> Sample(Request& r, int32_t logits_index);
  void Free(uint64_t id);

  llama_model* model_ = nullptr;
  llama_context* context_ = nullptr;
  int context_length_ = 0;
  int batch_capacity_ = 0;
  int vocab_size_ = 0;
  std::vector<int> free_sequences_;
  std::map<uint64_t, std::unique_ptr<Request>> requests_;
  int last_rows_ = 0;
  int last_tokens_ = 0;
};

// The folder a shared library lives in (this backend's own: the llama.cpp libraries sit beside it).
std::string DirectoryOfThisLibrary();

}  // namespace triton_studio::llama_cpp
