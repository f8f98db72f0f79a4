// ts-llama-bench: InflightEngine's decode speed without Triton, for docs/BENCHMARKS.md:
//   ts-llama-bench MODEL.gguf THREADS SEQUENCES [TOKENS]
// runs SEQUENCES greedy requests ("The capital of France is", TOKENS new tokens each, default 16)
// together, twice (the first warms up), and prints ms per decode step and tokens/s of the second.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "inflight_engine.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: ts-llama-bench MODEL.gguf THREADS SEQUENCES [TOKENS]\n");
    return 2;
  }
  using namespace triton_studio::llama_cpp;
  EngineOptions options;
  options.model_path = argv[1];
  options.backends_dir = TS_LLAMA_BINS;
  options.threads = std::atoi(argv[2]);
  options.max_sequences = std::atoi(argv[3]);
  options.context_length = 256;
  const int tokens = argc > 4 ? std::atoi(argv[4]) : 16;
  try {
    InflightEngine engine(options);
    for (int round = 0; round < 2; ++round) {
      GenerationParams params;
      params.max_new_tokens = tokens;
      for (int i = 0; i < options.max_sequences; ++i) {
        engine.Add(static_cast<uint64_t>(round * 1000 + i), engine.Tokenize("The capital of France is", false), params);
      }
      const auto start = std::chrono::steady_clock::now();
      int steps = 0;
      while (engine.Active() > 0) engine.Step(), ++steps;
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (round == 1) {
        std::printf("threads %d, sequences %d: %d steps, %.1f ms/step, %.1f tokens/s\n", options.threads,
                    options.max_sequences, steps, ms / steps, options.max_sequences * tokens / ms * 1000);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ts-llama-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
