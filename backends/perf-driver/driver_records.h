// The JSON records ts-perf-driver writes on stdout, one per measured request, and the text it
// reads out of each response (the protocol is in perf_driver.cc's header).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "grpc_service.pb.h"

namespace ts_perf {

void appendJsonString(std::string& out, const std::string& s);
// Milliseconds with microsecond precision.
void appendMs(std::string& out, int64_t ns);

struct ResponseText {
  bool hasText = false;
  std::string text;
  bool final = false;
  int outputs = 0;
};


ResponseText readResponse(const inference::ModelInferResponse& r);

// One request, from its send to its record.
struct Request {
  int phase = 0;  // 0 warm-up, 1 measured
  size_t input = 0;
  uint64_t seq = 0;
  std::string id;
  double scheduledMs = -1;  // open loop: the send time, ms from the phase's start
  int64_t sentNs = 0;
  int responses = 0;
  std::vector<std::pair<int64_t, std::string>> chunks;  // arrival (ns since send), text
  int32_t call = -1;  // the unary call, or the stream it went on
};

// Appends `r`'s record (one JSON line; `kind` null when it succeeded) to `out`. `origin` is the
// start of measurement; a request that never went out (its connection failed first) starts when
// it was due (`endNs`).
void appendRecord(std::string& out, const Request& r, int64_t origin, int64_t endNs, const char* kind, int code,
                  const std::string& message);
// Writes all of `data` to stdout; exits (3) when the TypeScript side went away.
void writeAll(const std::string& data);

}  // namespace ts_perf
