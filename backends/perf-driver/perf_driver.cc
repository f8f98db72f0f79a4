// ts-perf-driver: the hot path of `triton-studio perf --engine native`. Node's event loop spends
// several wake-ups (socket read, promise hops, timers) on every request, which made perf's client
// CPU per request 1.3-2.8x perf_analyzer's; this process sends and times the requests on one thread
// (an epoll loop: a timerfd for the send schedule, the HTTP/2 connection of grpc_connection.h) and
// hands the TypeScript side one record per request in batches, so Node wakes about every FLUSH_NS
// instead of several times a request. Everything else (load schedules and seeds, inputs, metrics,
// windows, reports) stays in TypeScript.
//
// Usage: ts-perf-driver --url HOST:PORT --method infer|stream [--timeout-ms N] [--max-streams N]
//                       [--header KEY=VALUE]...
//
// stdin, from the TypeScript side, in order:
//   request <n>\n<n bytes>          an encoded inference.ModelInferRequest (no id); repeated: the
//                                   requests cycle through them, as perf's inputs do
//   closed <concurrency> <warmup> <requests|-1> <duration-ms|-1>\n     closed loop, or
//   open\nwarmup-times <n>\n<ms…>\ntimes <n>\n<ms…>\n                   open loop: send times,
//                                   ms from the start of each phase (TypeScript draws them, so
//                                   --seed, Poisson and gamma are one implementation)
//   start\n
// then at any time: go\n (measure: after the warm-up, once the TS side took its snapshots),
// stop\n (send no more; requests in flight finish). EOF is stop.
//
// stdout: W\n when the warm-up is done; then one JSON line per measured request:
//   {"i":input,"s":start-ms,"l":latency-ms[,"lag":ms],"r":responses,"c":[[ms,"text"],…]
//    [,"k":"server"|"timeout"|"status","g":grpc-code,"e":"message"]}
// (s from the start of measurement, c's times from the send); E\n at the end.
//
// Semantics follow the Node engine (client/grpc/streamPool.ts): ModelStreamInfer requests go over
// long-lived streams, an idle one or a new one while fewer than --max-streams are open, else the
// least busy; a timeout fails the request on the client and drops its late responses (nothing is
// cancelled: concurrent stream cancellations crash Triton 2.51); a status of UNAVAILABLE in the
// measured phase stops sending at once.
//
// Files: driver_input (command line, stdin schedule), driver.cc (the loop), driver_records (the
// stdout records), grpc_connection (HTTP/2 + gRPC framing).
#include <sys/prctl.h>

#include <csignal>
#include <iostream>

#include "driver.h"

int main(int argc, char** argv) {
  // Never outlive perf: a perf that quit at once (a second Ctrl-C) leaves no driver waiting on a
  // server that does not answer.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  std::ios::sync_with_stdio(false);
  ts_perf::Options options = ts_perf::parseOptions(argc, argv);
  std::vector<std::string> inputs;
  ts_perf::Load load;
  if (!ts_perf::readSchedule(inputs, load)) return 0;
  // Control lines that arrived with "start" sit in std::cin's buffer; the loop reads fd 0 itself.
  std::string rest(size_t(std::max<std::streamsize>(0, std::cin.rdbuf()->in_avail())), '\0');
  rest.resize(size_t(std::cin.readsome(rest.data(), std::streamsize(rest.size()))));
  return ts_perf::runDriver(std::move(options), std::move(inputs), std::move(load), std::move(rest));
}
