// ts-tokenize: encode text or decode ids with the native tokenizer library.
//
//   ts-tokenize --tokenizer FILE [--json] [--no-special-tokens] TEXT
//   ts-tokenize --tokenizer FILE --decode [--json] [--skip-special-tokens] IDS   (comma/space separated or JSON array)
//   ts-tokenize --tokenizer FILE --batch [--no-special-tokens] [--skip-special-tokens] < lines.jsonl
//   ts-tokenize --tokenizer FILE --jsonl [--decode] [--no-special-tokens] [--skip-special-tokens] < data.jsonl
//
// JSONL mode is for whole data sets: one JSON string per line in, one JSON array of ids per line
// out (with --decode: arrays in, strings out), nothing else computed. Blank lines are skipped;
// the first line that is not what it should be stops the run with its line number (exit 1).
// Batch mode reads one JSON object per line: {"text": "..."} or {"hex": "<bytes as hex>"} to
// encode, {"ids": [...]} to decode. It prints one JSON line per input with "ids", "text" (the
// full decode of those ids) and "stream" (the concatenated IncrementalDecoder output), or
// {"error": "..."} for a line it cannot handle. {"rows": [{"text": "...", "pair": "..."}, ...]} is
// one encoder batch (pair optional) with the tokenizer's own truncation and padding: it prints
// {"encodings": [{"ids", "type_ids", "attention_mask"}, ...]}, so one process checks thousands of strings. Each
// answer is flushed when no further input is waiting, so a client can keep one process and ask
// line by line.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "triton_studio/tokenizer.h"

namespace {

using nlohmann::json;
using triton_studio::tok::IncrementalDecoder;
using triton_studio::tok::Tokenizer;
using triton_studio::tok::TokenizerError;

constexpr const char* kUsage =
    "usage: ts-tokenize --tokenizer FILE [--decode] [--json] [--no-special-tokens] [--skip-special-tokens] TEXT|IDS\n"
    "       ts-tokenize --tokenizer FILE --batch [--no-special-tokens] [--skip-special-tokens] < lines.jsonl\n"
    "  TEXT is encoded to ids; with --decode, IDS (\"1,2,3\", \"1 2 3\" or \"[1,2,3]\") are decoded to text.\n"
    "  --no-special-tokens    encode without the template's special tokens (e.g. BOS)\n"
    "  --skip-special-tokens  leave special tokens out of decoded text\n"
    "  --batch                JSON lines on stdin: {\"text\"}|{\"hex\"}|{\"ids\"} -> {\"ids\",\"text\",\"stream\"}\n"
    "  --jsonl                JSON lines on stdin: a string per line -> an id array per line\n"
    "                         (with --decode: an id array per line -> a string per line)\n";

struct Options {
  std::string tokenizer_path;
  bool decode = false, as_json = false, batch = false, jsonl = false;
  bool add_special_tokens = true, skip_special_tokens = false;
  std::vector<std::string> positional;
};

[[noreturn]] void UsageError(const std::string& message) {
  std::cerr << "ts-tokenize: " << message << "\n" << kUsage;
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (only_positional || a.empty() || a[0] != '-' || a == "-") {
      o.positional.push_back(a);
    } else if (a == "--") {
      only_positional = true;
    } else if (a == "--tokenizer") {
      if (i + 1 >= argc) UsageError("--tokenizer needs a file path");
      o.tokenizer_path = argv[++i];
    } else if (a.rfind("--tokenizer=", 0) == 0) {
      o.tokenizer_path = a.substr(12);
    } else if (a == "--decode") {
      o.decode = true;
    } else if (a == "--json") {
      o.as_json = true;
    } else if (a == "--batch") {
      o.batch = true;
    } else if (a == "--jsonl") {
      o.jsonl = true;
    } else if (a == "--no-special-tokens") {
      o.add_special_tokens = false;
    } else if (a == "--skip-special-tokens") {
      o.skip_special_tokens = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a.size() > 1 && a[0] == '-' && (a[1] == '-' || !std::isdigit(static_cast<unsigned char>(a[1])))) {
      UsageError("unknown option '" + a + "'");
    } else {
      o.positional.push_back(a);
    }
  }
  if (o.tokenizer_path.empty()) UsageError("--tokenizer FILE is required");
  if (o.batch && o.jsonl) UsageError("give --batch or --jsonl, not both");
  if (o.jsonl && !o.positional.empty()) UsageError("--jsonl reads stdin and takes no TEXT argument");
  if (o.jsonl) return o;
  if (!o.batch && o.positional.size() != 1)
    UsageError(o.positional.empty() ? "missing TEXT (or IDS with --decode)"
                                    : "expected one TEXT|IDS argument (quote text containing spaces)");
  if (o.batch && !o.positional.empty()) UsageError("--batch reads stdin and takes no TEXT argument");
  return o;
}

std::vector<uint32_t> ParseIds(const std::string& s) {
  std::vector<uint32_t> ids;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ',' || c == '[' || c == ']' || std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw TokenizerError("IDS: unexpected '" + std::string(1, c) + "' (give non-negative integers, e.g. 15496,995)");
    size_t j = i;
    unsigned long long v = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
      v = v * 10 + static_cast<unsigned>(s[j] - '0');
      if (v > UINT32_MAX) throw TokenizerError("IDS: " + s.substr(i, j - i + 1) + "... is out of range");
      ++j;
    }
    ids.push_back(static_cast<uint32_t>(v));
    i = j;
  }
  return ids;
}

std::string FromHex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw TokenizerError("\"hex\" must have an even number of digits");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string Stream(const Tokenizer& tok, const std::vector<uint32_t>& ids, bool skip) {
  IncrementalDecoder dec(tok, skip);
  std::string out;
  for (uint32_t id : ids) out += dec.Push(id);
  out += dec.Finish();
  return out;
}

// One encoder batch: texts with optional second texts, truncated and padded as tokenizer.json says.
json EncodeRows(const Tokenizer& tok, const json& rows, bool add_special_tokens) {
  if (!rows.is_array()) throw TokenizerError("\"rows\" must be an array of {\"text\", \"pair\"} objects");
  std::vector<std::string> texts;
  std::vector<std::optional<std::string>> pairs;
  for (const json& row : rows) {
    texts.push_back(row.at("text").get<std::string>());
    pairs.push_back(row.contains("pair") ? std::optional<std::string>(row["pair"].get<std::string>()) : std::nullopt);
  }
  std::vector<triton_studio::tok::EncodeInput> inputs;
  for (size_t i = 0; i < texts.size(); ++i)
    inputs.push_back({texts[i], pairs[i] ? std::optional<std::string_view>(*pairs[i]) : std::nullopt});
  json encodings = json::array();
  for (const auto& e : tok.EncodeBatch(inputs, add_special_tokens, tok.EncoderDefaults()))
    encodings.push_back({{"ids", e.ids}, {"type_ids", e.type_ids}, {"attention_mask", e.attention_mask}});
  return json{{"encodings", encodings}};
}

// cin is tied to cout: every read would flush cout first, one write(2) per answer. The loops flush
// themselves, when no further input is waiting.
void UntieStreams() {
  std::ios::sync_with_stdio(false);
  std::cin.tie(nullptr);
}

int RunBatch(const Tokenizer& tok, const Options& o) {
  UntieStreams();
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json out;
    try {
      json in;
      try {
        in = json::parse(line);
      } catch (const json::parse_error& e) {
        throw TokenizerError(std::string("input line is not JSON: ") + e.what());
      }
      const bool add = in.value("add_special_tokens", o.add_special_tokens);
      const bool skip = in.value("skip_special_tokens", o.skip_special_tokens);
      if (in.contains("rows")) {
        out = EncodeRows(tok, in["rows"], add);
        std::cout << Dump(out) << '\n';
        if (std::cin.rdbuf()->in_avail() <= 0) std::cout.flush();
        continue;
      }
      std::vector<uint32_t> ids;
      if (in.contains("text")) {
        ids = tok.Encode(in["text"].get<std::string>(), add);
      } else if (in.contains("hex")) {
        ids = tok.Encode(FromHex(in["hex"].get<std::string>()), add);
      } else if (in.contains("ids")) {
        ids = in["ids"].get<std::vector<uint32_t>>();
      } else {
        throw TokenizerError("input line needs \"text\", \"hex\" or \"ids\"");
      }
      out["ids"] = ids;
      out["text"] = tok.Decode(ids, skip);
      out["stream"] = Stream(tok, ids, skip);
    } catch (const std::exception& e) {
      out = json{{"error", e.what()}};
    }
    std::cout << Dump(out) << '\n';
    // Answer at once when no more input is waiting: a client that keeps the process (perf, the
    // OpenAI front) sends one line and waits; a batch still gets its output in large writes.
    if (std::cin.rdbuf()->in_avail() <= 0) std::cout.flush();
  }
  std::cout.flush();
  return 0;
}

// Encoded lines are answered in batches: the lines already read (up to kJsonlBatch) go through
// EncodeFlat together, which looks their words up in one pass; a batch is answered as soon as no
// more input is waiting, so a caller that writes a line and waits gets its answer.
constexpr size_t kJsonlBatch = 1024;

void AppendIds(const uint32_t* ids, size_t n, std::string& answer) {
  answer.push_back('[');
  for (size_t i = 0; i < n; ++i) {
    if (i) answer.push_back(',');
    answer += std::to_string(ids[i]);
  }
  answer += "]\n";
}

int RunJsonl(const Tokenizer& tok, const Options& o) {
  UntieStreams();
  std::string line, answer;
  std::vector<uint32_t> ids;  // one buffer for every line
  std::vector<std::string> texts, batch;
  std::vector<std::string_view> views;
  std::vector<size_t> ends;
  size_t number = 0;  // the line read last
  size_t first = 0;   // the line of texts[0]
  size_t at = 0;      // the line an error is reported at
  // Answers the texts read so far, in order; an error names the first of their lines.
  const auto answer_texts = [&] {
    if (texts.empty()) return;
    at = first;
    batch.swap(texts);  // taken, so that a failed batch is not tried again
    texts.clear();
    views.assign(batch.begin(), batch.end());
    ids.clear();
    ends.clear();
    tok.EncodeFlat(views, o.add_special_tokens, ids, ends);
    answer.clear();
    for (size_t i = 0, begin = 0; i < ends.size(); begin = ends[i++]) AppendIds(ids.data() + begin, ends[i] - begin, answer);
    std::cout.write(answer.data(), static_cast<std::streamsize>(answer.size()));
  };
  try {
    while (std::getline(std::cin, line)) {
      at = ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json in;
      try {
        in = json::parse(line);
      } catch (const json::parse_error& e) {
        throw TokenizerError(std::string("not JSON: ") + e.what());
      }
      if (o.decode) {
        if (!in.is_array()) throw TokenizerError("expected a JSON array of token ids, e.g. [15496, 995]");
        ids.clear();
        for (const json& id : in) {
          if (!id.is_number_unsigned() || id.get<uint64_t>() > UINT32_MAX)
            throw TokenizerError("expected non-negative integer ids, found " + Dump(id));
          ids.push_back(id.get<uint32_t>());
        }
        answer = Dump(json(tok.Decode(ids, o.skip_special_tokens)));
        answer.push_back('\n');
        std::cout.write(answer.data(), static_cast<std::streamsize>(answer.size()));
      } else {
        if (!in.is_string()) throw TokenizerError("expected a JSON string (one text per line), e.g. \"Hello world\"");
        if (texts.empty()) first = number;
        texts.push_back(std::move(in.get_ref<std::string&>()));
        if (texts.size() < kJsonlBatch && std::cin.rdbuf()->in_avail() > 0) continue;
        answer_texts();
      }
      if (std::cin.rdbuf()->in_avail() <= 0) std::cout.flush();
    }
    answer_texts();
  } catch (const std::exception& e) {
    const size_t error_at = at;
    try {
      answer_texts();  // the lines before the one at fault are answered first
    } catch (const std::exception&) {
    }
    std::cout.flush();
    std::cerr << "ts-tokenize: line " << error_at << ": " << e.what() << '\n';
    return 1;
  }
  std::cout.flush();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  try {
    const auto tok = Tokenizer::FromFile(o.tokenizer_path);
    if (o.batch) return RunBatch(*tok, o);
    if (o.jsonl) return RunJsonl(*tok, o);
    if (o.decode) {
      const std::string text = tok->Decode(ParseIds(o.positional[0]), o.skip_special_tokens);
      if (o.as_json) {
        std::cout << Dump(json{{"text", text}}) << '\n';
      } else {
        std::cout << text << '\n';
      }
      return 0;
    }
    const std::vector<uint32_t> ids = tok->Encode(o.positional[0], o.add_special_tokens);
    if (o.as_json) {
      std::cout << Dump(json{{"ids", ids}}) << '\n';
    } else {
      for (size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
      std::cout << '\n';
    }
    return 0;
  } catch (const TokenizerError& e) {
    std::cerr << "ts-tokenize: " << e.what() << '\n';
    return 1;
  }
}
