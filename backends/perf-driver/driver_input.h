// ts-perf-driver's input: its command line and the load schedule the TypeScript side writes on
// stdin before "start" (the protocol is in perf_driver.cc's header).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ts_perf {

struct Options {
  std::string host, port;
  bool stream = true;
  int64_t timeoutMs = 0;
  size_t maxStreams = 100;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct Load {
  bool closed = true;
  int concurrency = 1;
  int64_t warmup = 0;
  int64_t requests = -1;
  double durationMs = -1;
  std::vector<double> warmupTimes, times;
};

// Prints "ts-perf-driver: <message>" and exits 2: a wrong command line or stdin protocol.
[[noreturn]] void fail(const std::string& message);
Options parseOptions(int argc, char** argv);
// Reads the requests and the schedule up to "start"; false when stdin ended before it.
bool readSchedule(std::vector<std::string>& inputs, Load& load);

}  // namespace ts_perf
