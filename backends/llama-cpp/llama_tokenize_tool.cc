// ts-llama-tokenize: llama.cpp's own tokenizer for a GGUF model, the reference the native
// tokenizer (tokenizer.json imported from the same GGUF) is checked against id for id.
//   ts-llama-tokenize MODEL.gguf [--no-special] < texts.jsonl > ids.jsonl
// Each input line is one JSON string; each output line the JSON array of its ids.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "inflight_engine.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: ts-llama-tokenize MODEL.gguf [--no-special] < texts.jsonl\n";
    return 2;
  }
  const bool special = !(argc > 2 && std::string(argv[2]) == "--no-special");
  triton_studio::llama_cpp::EngineOptions options;
  options.model_path = argv[1];
  options.backends_dir = TS_LLAMA_BINS;
  options.max_sequences = 1;
  options.context_length = 16;
  options.threads = 1;
  try {
    triton_studio::llama_cpp::InflightEngine engine(options);
    for (std::string line; std::getline(std::cin, line);) {
      if (line.empty()) continue;
      const std::string text = nlohmann::json::parse(line).get<std::string>();
      std::cout << nlohmann::json(engine.Tokenize(text, special)).dump() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "ts-llama-tokenize: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
