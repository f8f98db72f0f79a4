// ts-tokenize-bench: single-thread throughput of the native tokenizer on a corpus.
//   ts-tokenize-bench --tokenizer FILE --corpus FILE.jsonl [--seconds S] [--passes N] [--only encode]
//                     [--encode loop]
// The corpus is JSON lines with a "text" field (other lines are skipped). Prints one JSON object:
// load time, memory added by loading, encode and decode MB/s and tokens/s. Throughput is that of
// the fastest pass over the corpus among those run in S seconds (at least 3 passes): on a shared
// machine the slower passes measure the neighbours (bench/tokenizers/py_bench.py does the same).
// --passes N runs exactly N passes of each (1 under callgrind, whose instruction counts are the
// repeatable measure on a shared machine: see docs/TOKENIZERS.md). --only encode skips decoding, so a
// profile (perf, callgrind) of the process is one of encoding. Encoding is timed through EncodeFlat,
// all texts in one call as the peers' batch calls are; --encode loop times one EncodeAppend per text
// instead.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "triton_studio/tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

long RssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}


struct Options {
  std::string tokenizer_path, corpus_path;
  double min_seconds = 3.0;
  int exact_passes = 0;
  bool encode_only = false;
  bool loop = false;  // --encode loop: EncodeAppend per text instead of EncodeFlat
};

// The corpus's {"text": ...} lines, and their total bytes.
std::vector<std::string> ReadCorpus(const std::string& path, size_t& bytes) {
  std::vector<std::string> texts;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("text") && j["text"].is_string()) {
      texts.push_back(j["text"].get<std::string>());
      bytes += texts.back().size();
    }
  }
  return texts;
}

// Load time: best of 5 (the first one also pays for page-cache misses); the memory the first adds.
std::unique_ptr<triton_studio::tok::Tokenizer> Load(const std::string& path, double& load_s, long& rss_added_kb) {
  load_s = 1e9;
  std::unique_ptr<triton_studio::tok::Tokenizer> tok;
  for (int i = 0; i < 5; ++i) {
    tok.reset();
    const long before = RssKb();
    const auto t0 = Clock::now();
    tok = triton_studio::tok::Tokenizer::FromFile(path);
    load_s = std::min(load_s, Seconds(t0, Clock::now()));
    if (i == 0) rss_added_kb = RssKb() - before;  // later loads reuse freed memory
  }
  return tok;
}

// Runs `pass` repeatedly for at least min_seconds and 3 passes (or exactly exact_passes); returns
// the fastest pass.
template <typename Pass>
double Fastest(const Options& o, const Pass& pass) {
  double best = 1e9;
  const auto start = Clock::now();
  for (int n = 0; o.exact_passes > 0 ? n < o.exact_passes : n < 3 || Seconds(start, Clock::now()) < o.min_seconds;
       ++n) {
    const auto t0 = Clock::now();
    pass();
    best = std::min(best, Seconds(t0, Clock::now()));
  }
  return best;
}

json Measure(const Options& o, const std::vector<std::string>& texts, size_t bytes) {
  double load_s = 0;
  long rss_added_kb = 0;
  const auto tok = Load(o.tokenizer_path, load_s, rss_added_kb);
  // Timed as the peers' batch calls are (fastokens' encode_batch_flat): every text's ids in one
  // buffer, with where each text's ids end; the per-text vectors decode reads are made after the
  // timing, as bench/tokenizers/py_bench.py makes its peers' lists.
  std::vector<uint32_t> flat;
  std::vector<size_t> ends;
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  const double encode_s = Fastest(o, [&] {
    flat.clear();
    ends.clear();
    if (o.loop) {
      for (const std::string_view text : views) {
        tok->EncodeAppend(text, false, flat);
        ends.push_back(flat.size());
      }
    } else {
      tok->EncodeFlat(views, false, flat, ends);
    }
  });
  const size_t tokens = flat.size();
  std::vector<std::vector<uint32_t>> encoded(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) encoded[i].assign(flat.begin() + (i ? ends[i - 1] : 0), flat.begin() + ends[i]);
  json result = {{"strings", texts.size()},
          {"bytes", bytes},
          {"tokens", tokens},
          {"load_ms", load_s * 1e3},
          {"rss_added_mb", rss_added_kb / 1024.0},
          {"encode_mb_s", bytes / encode_s / 1e6},
          {"encode_tokens_s", tokens / encode_s}};
  if (o.encode_only) return result;
  size_t decoded_bytes = 0;
  const double decode_s = Fastest(o, [&] {
    decoded_bytes = 0;
    for (const auto& ids : encoded) decoded_bytes += tok->Decode(ids, false).size();
  });
  result["decode_mb_s"] = decoded_bytes / decode_s / 1e6;
  result["decode_tokens_s"] = tokens / decode_s;
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--tokenizer") o.tokenizer_path = argv[i + 1];
    else if (a == "--corpus") o.corpus_path = argv[i + 1];
    else if (a == "--seconds") o.min_seconds = std::stod(argv[i + 1]);
    else if (a == "--passes") o.exact_passes = std::stoi(argv[i + 1]);
    else if (a == "--only") o.encode_only = std::string(argv[i + 1]) == "encode";
    else if (a == "--encode") o.loop = std::string(argv[i + 1]) == "loop";
  }
  if (o.tokenizer_path.empty() || o.corpus_path.empty()) {
    std::cerr << "usage: ts-tokenize-bench --tokenizer FILE --corpus FILE.jsonl [--seconds S] [--passes N] [--only encode]"
                 " [--encode loop]\n";
    return 2;
  }
  size_t bytes = 0;
  const std::vector<std::string> texts = ReadCorpus(o.corpus_path, bytes);
  if (texts.empty()) {
    std::cerr << "ts-tokenize-bench: no {\"text\": ...} lines in " << o.corpus_path << "\n";
    return 1;
  }
  try {
    std::cout << Measure(o, texts, bytes).dump() << "\n";
  } catch (const triton_studio::tok::TokenizerError& e) {
    std::cerr << "ts-tokenize-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
