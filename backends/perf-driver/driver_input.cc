// ts-perf-driver's command line and stdin schedule (see driver_input.h).
#include "driver_input.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <iostream>
#include <tuple>

#include "grpc_service.pb.h"

namespace ts_perf {

using inference::ModelInferRequest;

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "ts-perf-driver: %s\n", message.c_str());
  std::exit(2);
}

namespace {

std::vector<double> readTimes(const std::string& header, const char* name) {
  std::string prefix = std::string(name) + " ";
  if (header.rfind(prefix, 0) != 0) fail("expected '" + prefix + "<n>' on stdin, got '" + header + "'");
  long n = std::stol(header.substr(prefix.size()));
  std::vector<double> times(size_t(std::max(0L, n)));
  for (auto& t : times)
    if (!(std::cin >> t)) fail(std::string("stdin ended inside ") + name);
  std::string rest;
  std::getline(std::cin, rest);
  for (size_t i = 1; i < times.size(); i++)
    if (times[i] < times[i - 1]) fail(std::string(name) + " must not decrease");
  return times;
}

/** HOST:PORT or [IPv6]:PORT. */
std::pair<std::string, std::string> splitUrl(const std::string& url) {
  auto colon = url.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == url.size()) fail("--url must be HOST:PORT (got '" + url + "')");
  std::string host = url.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, url.substr(colon + 1)};
}

/** The command line: --url and --method required, a clear error for anything else. */

}  // namespace

Options parseOptions(int argc, char** argv) {
  Options options;
  bool method = false;
  std::string url;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--url") {
      url = value();
    } else if (a == "--method") {
      std::string m = value();
      if (m != "infer" && m != "stream") fail("--method must be infer or stream (got '" + m + "')");
      options.stream = m == "stream";
      method = true;
    } else if (a == "--timeout-ms") {
      options.timeoutMs = std::stoll(value());
    } else if (a == "--max-streams") {
      options.maxStreams = size_t(std::max(1LL, std::stoll(value())));
    } else if (a == "--header") {
      std::string h = value();
      auto eq = h.find('=');
      if (eq == std::string::npos || eq == 0) fail("--header must be KEY=VALUE (got '" + h + "')");
      std::string key = h.substr(0, eq);
      std::transform(key.begin(), key.end(), key.begin(), ::tolower);  // HTTP/2 header names are lower-case
      options.headers.emplace_back(key, h.substr(eq + 1));
    } else {
      fail("unknown argument '" + a + "'");
    }
  }
  if (url.empty() || !method) fail("usage: ts-perf-driver --url HOST:PORT --method infer|stream");
  std::tie(options.host, options.port) = splitUrl(url);
  return options;
}

/** The encoded requests and the load from stdin, up to "start"; false if stdin ended before it. */
bool readSchedule(std::vector<std::string>& inputs, Load& load) {
  bool haveLoad = false;
  std::string line;
  while (std::getline(std::cin, line) && line != "start") {
    if (line.rfind("request ", 0) == 0) {
      size_t n = std::stoul(line.substr(8));
      std::string bytes(n, '\0');
      if (!std::cin.read(bytes.data(), std::streamsize(n))) fail("stdin ended inside a request");
      ModelInferRequest request;
      if (!request.ParseFromString(bytes)) fail("a request is not an encoded inference.ModelInferRequest");
      inputs.push_back(std::move(bytes));
      std::getline(std::cin, line);  // the newline after the bytes
    } else if (line.rfind("closed ", 0) == 0) {
      long long warmup = 0, requests = 0;
      if (std::sscanf(line.c_str(), "closed %d %lld %lld %lf", &load.concurrency, &warmup, &requests,
                      &load.durationMs) != 4 ||
          load.concurrency < 1 || warmup < 0)
        fail("bad load line '" + line + "'");
      load.warmup = warmup;
      load.requests = requests;
      load.closed = true;
      haveLoad = true;
    } else if (line == "open") {
      load.closed = false;
      std::getline(std::cin, line);
      load.warmupTimes = readTimes(line, "warmup-times");
      std::getline(std::cin, line);
      load.times = readTimes(line, "times");
      haveLoad = true;
    } else if (!line.empty()) {
      fail("unknown command on stdin: '" + line + "'");
    }
  }
  if (line != "start") return false;  // the TypeScript side went away before starting
  if (inputs.empty()) fail("no request given");
  if (!haveLoad) fail("no load given");
  return true;
}

}  // namespace ts_perf
