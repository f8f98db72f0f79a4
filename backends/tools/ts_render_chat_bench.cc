// ts-render-chat-bench: latency of one render of a conversation with a model's chat template
// (the per-request cost in a step: the template is parsed once, at load). Driven by
// bench/chat-template/run.ts beside transformers' apply_chat_template on the same input.
//
//   ts-render-chat-bench --tokenizer-config FILE --messages FILE [--add-generation-prompt] [--seconds S]
//
// Prints one JSON line: parse_us (loading the config and parsing its template), the render
// latency percentiles in microseconds, the iterations, the rendered size and text.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "triton_studio/chat_template.h"

namespace chat = triton_studio::chat;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::string config, messages_path;
  bool agp = false;
  double seconds = 2.0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--tokenizer-config" && i + 1 < argc) config = argv[++i];
    else if (a == "--messages" && i + 1 < argc) messages_path = argv[++i];
    else if (a == "--seconds" && i + 1 < argc) seconds = std::stod(argv[++i]);
    else if (a == "--add-generation-prompt") agp = true;
    else {
      std::cerr << "usage: ts-render-chat-bench --tokenizer-config FILE --messages FILE [--add-generation-prompt] [--seconds S]\n";
      return 2;
    }
  }
  std::ifstream in(messages_path);
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    chat::ChatRequest request;
    request.messages = chat::Json::parse(ss.str());
    request.add_generation_prompt = agp;
    auto t0 = Clock::now();
    chat::ChatTemplate tmpl = chat::ChatTemplate::FromTokenizerConfigFile(config);
    double parse_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    std::string first = tmpl.Render(request);  // warm-up; printed so the bench can compare texts
    size_t bytes = first.size();
    std::vector<double> samples;
    auto end = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < end) {
      for (int k = 0; k < 64; ++k) {
        auto s = Clock::now();
        std::string text = tmpl.Render(request);
        samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s).count());
        bytes = text.size();
      }
    }
    std::sort(samples.begin(), samples.end());
    auto pct = [&](double p) { return samples[std::min(samples.size() - 1, static_cast<size_t>(p * samples.size()))]; };
    double sum = 0;
    for (double x : samples) sum += x;
    chat::Json out = {{"parse_us", parse_us}, {"p50_us", pct(0.50)}, {"p90_us", pct(0.90)}, {"p99_us", pct(0.99)},
                      {"mean_us", sum / samples.size()}, {"iterations", samples.size()}, {"bytes", bytes},
                      {"text", first}};
    std::cout << out.dump() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "ts-render-chat-bench: " << e.what() << "\n";
    return 1;
  }
}
