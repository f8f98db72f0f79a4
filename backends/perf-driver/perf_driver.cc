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
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <iostream>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "grpc_connection.h"
#include "grpc_service.pb.h"

namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;
using ts_perf::GrpcConnection;
using ts_perf::monotonicNs;

// Records reach Node at most this late (progress, the stability stop). Each flush wakes Node
// (~250-450 us of CPU on a 2-core VM: at 20 requests/s, 200 ms flushes cost Node 2.2 ms/s).
constexpr int64_t FLUSH_NS = 1'000'000'000;
constexpr size_t FLUSH_BYTES = 65536;
constexpr const char* TEXT_OUTPUT = "text_output";
constexpr const char* INFER_PATH = "/inference.GRPCInferenceService/ModelInfer";
constexpr const char* STREAM_PATH = "/inference.GRPCInferenceService/ModelStreamInfer";

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "ts-perf-driver: %s\n", message.c_str());
  std::exit(2);
}

void appendJsonString(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

void appendMs(std::string& out, int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", double(ns) / 1e6);
  out += buf;
}

/** A BYTES tensor's elements (4-byte little-endian length, then the bytes), concatenated. */
std::string bytesTensorText(const std::string& raw) {
  std::string text;
  size_t at = 0;
  while (at + 4 <= raw.size()) {
    uint32_t n;
    std::memcpy(&n, raw.data() + at, 4);
    at += 4;
    if (at + n > raw.size()) break;
    text.append(raw, at, n);
    at += n;
  }
  return text;
}

/** What a response carries for perf: its text_output (if any) and whether it is the final one. */
struct ResponseText {
  bool hasText = false;
  std::string text;
  bool final = false;
  int outputs = 0;
};

ResponseText readResponse(const ModelInferResponse& r) {
  ResponseText out;
  out.outputs = r.outputs_size();
  for (int i = 0; i < r.outputs_size(); i++) {
    if (r.outputs(i).name() != TEXT_OUTPUT) continue;
    out.hasText = true;
    if (i < r.raw_output_contents_size()) out.text = bytesTensorText(r.raw_output_contents(i));
  }
  auto p = r.parameters().find("triton_final_response");
  out.final = p != r.parameters().end() && p->second.bool_param();
  return out;
}

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

struct Stream {
  int32_t call;
  bool idle = false, closed = false;
  std::unordered_map<std::string, Request*> pending;
  std::unordered_set<std::string> abandoned;  // timed out: their late responses are dropped
};

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

class Driver : public ts_perf::CallHandler {
 public:
  Driver(Options options, std::vector<std::string> inputs, Load load, std::string stdinRest)
      : options_(std::move(options)),
        inputs_(std::move(inputs)),
        load_(std::move(load)),
        stdin_(std::move(stdinRest)),
        conn_(options_.host, options_.port, options_.headers, this) {
    std::random_device rd;
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%08x", unsigned(rd()));
    idPrefix_ = std::string(prefix) + "-n";
  }

  int run() {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    timer_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    watch(0, EPOLLIN);
    watch(timer_, EPOLLIN);
    // A connection that fails fails every request with UNAVAILABLE, as gRPC's channel does.
    if (conn_.connect().empty()) watch(conn_.fd(), EPOLLIN);
    handleControl();  // what arrived with "start"
    if (load_.closed ? load_.warmup > 0 : !load_.warmupTimes.empty()) {
      startPhase(0);
      loopUntil([this] { return phaseDone(); });
    }
    emit("W\n");
    loopUntil([this] { return go_ || stop_; });
    if (!stop_) {
      startPhase(1);
      loopUntil([this] { return phaseDone(); });
    }
    emit("E\n");
    shutdown();
    return 0;
  }

  // --- the connection's reports (on this thread, from inside loop()) ------------------------------

  void onMessage(int32_t call, std::string_view bytes, int64_t arrived) override {
    if (!options_.stream) {
      auto it = unary_.find(call);
      if (it == unary_.end()) return;
      ModelInferResponse response;
      if (!response.ParseFromArray(bytes.data(), int(bytes.size()))) return;
      Request* r = it->second;
      ResponseText t = readResponse(response);
      r->responses = 1;
      if (t.hasText && !t.text.empty()) r->chunks.emplace_back(arrived - r->sentNs, std::move(t.text));
      return;  // completes at the call's end, with its status
    }
    auto sit = streams_.find(call);
    if (sit == streams_.end()) return;
    Stream* s = sit->second.get();
    ModelStreamInferResponse m;
    if (!m.ParseFromArray(bytes.data(), int(bytes.size()))) return;
    std::string id = m.has_infer_response() ? m.infer_response().id() : "";
    // Triton names the request in an error response; if it ever does not, one request in flight is unambiguous.
    if (!s->pending.count(id) && !m.error_message().empty() && s->pending.size() == 1)
      id = s->pending.begin()->first;
    auto it = s->pending.find(id);
    if (it == s->pending.end()) {
      s->abandoned.erase(id);
      return;
    }
    Request* r = it->second;
    if (!m.error_message().empty()) {
      s->pending.erase(it);
      release(s);  // before complete(): the slot's next request takes this stream, as in Node
      complete(r, arrived, "server", 0, m.error_message());
      return;
    }
    if (!m.has_infer_response()) return;
    ResponseText t = readResponse(m.infer_response());
    if (!(t.final && t.outputs == 0)) {
      r->responses++;
      if (t.hasText && !t.text.empty()) r->chunks.emplace_back(arrived - r->sentNs, std::move(t.text));
    }
    if (t.final) {
      s->pending.erase(it);
      release(s);
      complete(r, arrived, nullptr, 0, "");
    }
  }

  void onClose(int32_t call, int code, const std::string& message, int64_t now) override {
    if (conn_.dead()) stop_ = true;  // nothing more can be sent, in any phase
    if (!options_.stream) {
      auto it = unary_.find(call);
      if (it == unary_.end()) return;  // timed out before
      Request* r = it->second;
      unary_.erase(it);
      if (code == ts_perf::kOk && r->responses == 1) {
        complete(r, now, nullptr, 0, "");
      } else {
        const char* kind = code == ts_perf::kDeadlineExceeded ? "timeout" : "status";
        complete(r, now, kind, code == ts_perf::kOk ? ts_perf::kInternal : code,
                 code == ts_perf::kOk ? "the server answered without a response" : message);
      }
      return;
    }
    auto sit = streams_.find(call);
    if (sit == streams_.end()) return;
    Stream* s = sit->second.get();
    s->closed = true;
    std::vector<Request*> failed;
    for (auto& [id, r] : s->pending) failed.push_back(r);
    s->pending.clear();
    for (Request* r : failed) complete(r, now, "status", code, message);
  }

 private:
  // --- the loop -----------------------------------------------------------------------------------

  void watch(int fd, uint32_t events, int op = EPOLL_CTL_ADD) {
    epoll_event e{};
    e.events = events;
    e.data.fd = fd;
    epoll_ctl(epoll_, op, fd, &e);
  }

  template <typename Done>
  void loopUntil(Done done) {
    while (!done()) loop();
  }

  /** Waits for one batch of events and handles it: responses, the send timer, stdin, time-outs, flushes. */
  void loop() {
    int64_t now = monotonicNs();
    // Deadlines of requests that already ended are dropped here, not woken up for.
    while (!timeouts_.empty() && !live_.count(timeouts_.front().second)) timeouts_.pop_front();
    int64_t due = -1;  // the next time something must happen without an event
    if (!out_.empty()) due = lastFlush_ + FLUSH_NS;
    if (!timeouts_.empty()) due = due < 0 ? timeouts_.front().first : std::min(due, timeouts_.front().first);
    int waitMs = due < 0 ? -1 : int(std::max<int64_t>(0, (due - now + 999'999) / 1'000'000));
    epoll_event events[8];
    int n = epoll_wait(epoll_, events, 8, waitMs);
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == timer_) {
        uint64_t expirations;
        while (::read(timer_, &expirations, sizeof expirations) < 0 && errno == EINTR) {
        }
        sendDue();
      } else if (fd == 0) {
        readControl();
      } else if (fd == conn_.fd()) {
        conn_.onReadable();
      }
    }
    expireTimeouts(monotonicNs());
    flushConnection();
    flushRecords(false);
  }

  void flushConnection() {
    bool blocked = conn_.flush();
    if (blocked != writeBlocked_ && !conn_.dead()) {
      watch(conn_.fd(), EPOLLIN | (blocked ? uint32_t(EPOLLOUT) : 0u), EPOLL_CTL_MOD);
      writeBlocked_ = blocked;
    }
  }

  // --- phases -------------------------------------------------------------------------------------

  void startPhase(int phase) {
    phase_ = phase;
    issued_ = 0;
    origin_ = monotonicNs();
    if (load_.closed) {
      int64_t total = phase == 0 ? load_.warmup : load_.requests;
      deadline_ = phase == 1 && total < 0 && load_.durationMs > 0 ? origin_ + int64_t(load_.durationMs * 1e6) : 0;
      for (int i = 0; i < load_.concurrency && more(); i++) issue(-1);
      flushConnection();
    } else {
      times_ = phase == 0 ? &load_.warmupTimes : &load_.times;
      nextTime_ = 0;
      armTimer();
    }
  }

  /** Open loop: whether send times are left in this phase and sending has not been stopped. */
  bool timesLeft() const { return !load_.closed && nextTime_ < times_->size() && !stopNow(); }

  bool phaseDone() const { return !timesLeft() && inflight_ == 0; }

  /** Open loop: sends every request that is due, then sets the timer for the next one. */
  void sendDue() {
    int64_t now = monotonicNs();
    while (timesLeft()) {
      double at = (*times_)[nextTime_];
      if (origin_ + int64_t(at * 1e6) > now) break;
      nextTime_++;
      issue(at);
    }
    flushConnection();  // out at once, not after the rest of this batch of events
    armTimer();
  }

  void armTimer() {
    if (!timesLeft()) return;
    int64_t due = origin_ + int64_t((*times_)[nextTime_] * 1e6);
    itimerspec spec{};
    spec.it_value = {time_t(due / 1'000'000'000), long(due % 1'000'000'000)};
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;  // zero disarms
    timerfd_settime(timer_, TFD_TIMER_ABSTIME, &spec, nullptr);
  }

  bool stopNow() const { return stop_ || (phase_ == 0 && cancelled_); }

  /** Closed loop: whether a finished request's slot sends another. */
  bool more() const {
    if (stopNow()) return false;
    int64_t total = phase_ == 0 ? load_.warmup : load_.requests;
    if (total >= 0 && issued_ >= total) return false;
    return deadline_ == 0 || monotonicNs() < deadline_;
  }

  void issue(double scheduledMs) {
    auto owned = std::make_unique<Request>();
    Request* r = owned.get();
    r->phase = phase_;
    r->input = nextInput_++ % inputs_.size();
    r->seq = ++counter_;
    r->id = idPrefix_ + std::to_string(r->seq);
    r->scheduledMs = scheduledMs;
    live_.emplace(r->seq, std::move(owned));
    issued_++;
    inflight_++;
    // The input's encoding plus its id (field 3): a later field of the same number wins, so the id
    // is appended to the bytes instead of copying and re-encoding the message for every request.
    std::string& message = message_;  // one buffer for every request: no allocation per send
    message.assign(inputs_[r->input]);
    message += char(0x1a);
    appendVarint(message, r->id.size());
    message += r->id;
    int32_t call;
    if (!options_.stream) {
      call = conn_.startCall(INFER_PATH, options_.timeoutMs);
      if (call >= 0) {
        unary_[call] = r;
        conn_.send(call, message, true);
      }
    } else {
      Stream* s = acquire();
      call = s ? s->call : -1;
      if (s) {
        s->pending[r->id] = r;
        conn_.send(call, message, false);
      }
    }
    if (call < 0) {
      stop_ = true;
      complete(r, monotonicNs(), "status", ts_perf::kUnavailable, conn_.deathReason());
      return;
    }
    r->call = call;
    r->sentNs = monotonicNs();
    if (options_.timeoutMs > 0) timeouts_.emplace_back(r->sentNs + options_.timeoutMs * 1'000'000, r->seq);
  }

  static void appendVarint(std::string& out, uint64_t v) {
    while (v >= 0x80) {
      out += char(v | 0x80);
      v >>= 7;
    }
    out += char(v);
  }

  // --- streams ------------------------------------------------------------------------------------

  Stream* acquire() {
    while (!idle_.empty()) {
      Stream* s = idle_.back();
      idle_.pop_back();
      s->idle = false;
      if (!s->closed) return s;
    }
    size_t open = 0;
    Stream* least = nullptr;
    for (auto& [call, s] : streams_) {
      if (s->closed) continue;
      open++;
      if (!least || s->pending.size() < least->pending.size()) least = s.get();
    }
    if (open < options_.maxStreams || !least) {
      int32_t call = conn_.startCall(STREAM_PATH, 0);
      if (call < 0) return nullptr;
      auto s = std::make_unique<Stream>();
      s->call = call;
      return streams_.emplace(call, std::move(s)).first->second.get();
    }
    return least;
  }

  void release(Stream* s) {
    if (!s->closed && s->pending.empty() && !s->idle) {
      s->idle = true;
      idle_.push_back(s);
    }
  }

  // --- completion ---------------------------------------------------------------------------------

  void expireTimeouts(int64_t now) {
    while (!timeouts_.empty() && timeouts_.front().first <= now) {
      uint64_t seq = timeouts_.front().second;
      timeouts_.pop_front();
      auto it = live_.find(seq);
      if (it == live_.end()) continue;  // answered in time
      Request* r = it->second.get();
      if (options_.stream) {
        Stream* s = streams_.at(r->call).get();
        if (s->pending.erase(r->id)) s->abandoned.insert(r->id);
        release(s);
      } else {
        unary_.erase(r->call);  // the server's own deadline (grpc-timeout) ends the call
      }
      complete(r, now, "timeout", ts_perf::kDeadlineExceeded, "");
    }
  }

  /** A request ended: record it (measured phase), refill its closed-loop slot, free it. */
  void complete(Request* r, int64_t endNs, const char* kind, int code, const std::string& message) {
    inflight_--;
    if (r->phase == 1) {
      if (kind && std::strcmp(kind, "status") == 0 && code == ts_perf::kUnavailable) stop_ = true;
      record(r, endNs, kind, code, message);
    }
    bool refill = load_.closed && r->phase == phase_ && more();
    live_.erase(r->seq);
    if (refill) issue(-1);
  }

  void record(Request* r, int64_t endNs, const char* kind, int code, const std::string& message) {
    // A request that never went out (its connection failed first) starts when it was due.
    int64_t sent = r->sentNs ? r->sentNs : endNs;
    std::string& o = out_;
    o += "{\"i\":";
    o += std::to_string(r->input);
    o += ",\"s\":";
    appendMs(o, sent - origin_);
    o += ",\"l\":";
    appendMs(o, endNs - sent);
    if (r->scheduledMs >= 0) {
      o += ",\"lag\":";
      appendMs(o, std::max<int64_t>(0, sent - origin_ - int64_t(r->scheduledMs * 1e6)));
    }
    o += ",\"r\":";
    o += std::to_string(r->responses);
    o += ",\"c\":[";
    for (size_t i = 0; i < r->chunks.size(); i++) {
      if (i) o += ',';
      o += '[';
      appendMs(o, r->chunks[i].first);
      o += ',';
      appendJsonString(o, r->chunks[i].second);
      o += ']';
    }
    o += ']';
    if (kind) {
      o += ",\"k\":\"";
      o += kind;
      o += "\",\"g\":";
      o += std::to_string(code);
      o += ",\"e\":";
      appendJsonString(o, message);
    }
    o += "}\n";
  }

  // --- output and control -------------------------------------------------------------------------

  /** Hands the records gathered so far to stdout, at most every FLUSH_NS unless `force` or many. */
  void flushRecords(bool force) {
    int64_t now = monotonicNs();
    if (out_.empty() || (!force && now - lastFlush_ < FLUSH_NS && out_.size() < FLUSH_BYTES)) return;
    lastFlush_ = now;
    writeAll(out_);
    out_.clear();
  }

  void emit(const char* line) {
    flushRecords(true);
    writeAll(line);
    lastFlush_ = monotonicNs();
  }

  static void writeAll(const std::string& data) {
    size_t at = 0;
    while (at < data.size()) {
      ssize_t n = ::write(1, data.data() + at, data.size() - at);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::_Exit(3);  // the TypeScript side went away: nothing left to report to
      }
      at += size_t(n);
    }
  }

  void readControl() {
    char buf[4096];
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n > 0) {
      stdin_.append(buf, size_t(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      epoll_ctl(epoll_, EPOLL_CTL_DEL, 0, nullptr);
      stop_ = cancelled_ = true;  // EOF is stop
    }
    handleControl();
  }

  void handleControl() {
    size_t end;
    while ((end = stdin_.find('\n')) != std::string::npos) {
      std::string line = stdin_.substr(0, end);
      stdin_.erase(0, end + 1);
      if (line == "go") go_ = true;
      if (line == "stop") stop_ = cancelled_ = true;
    }
  }

  /** Half-closes every stream and waits (briefly) for the server to end them: never a cancel. */
  void shutdown() {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, 0, nullptr);  // stdin at EOF would wake this wait at once, forever
    epoll_ctl(epoll_, EPOLL_CTL_DEL, timer_, nullptr);
    for (auto& [call, s] : streams_)
      if (!s->closed) conn_.halfClose(call);
    flushConnection();
    int64_t until = monotonicNs() + 5'000'000'000;
    timeouts_.clear();
    while (conn_.openCalls() > 0 && !conn_.dead() && monotonicNs() < until) {
      epoll_event events[8];
      int n = epoll_wait(epoll_, events, 8, int((until - monotonicNs()) / 1'000'000) + 1);
      for (int i = 0; i < n; i++)
        if (events[i].data.fd == conn_.fd()) conn_.onReadable();
      flushConnection();
    }
    if (conn_.openCalls() > 0 && !conn_.dead()) std::_Exit(0);  // a call the server never ended: leave without cancelling it
  }

  Options options_;
  std::vector<std::string> inputs_;  // encoded requests without an id
  Load load_;
  std::string stdin_;  // control input not yet handled
  GrpcConnection conn_;
  std::string idPrefix_;
  int epoll_ = -1, timer_ = -1;
  bool writeBlocked_ = false;

  bool go_ = false, stop_ = false, cancelled_ = false;
  int phase_ = 0;
  int64_t origin_ = 0, deadline_ = 0, issued_ = 0, inflight_ = 0;
  const std::vector<double>* times_ = nullptr;
  size_t nextTime_ = 0;
  size_t nextInput_ = 0;
  uint64_t counter_ = 0;
  std::string message_;
  std::unordered_map<uint64_t, std::unique_ptr<Request>> live_;
  std::unordered_map<int32_t, Request*> unary_;
  std::unordered_map<int32_t, std::unique_ptr<Stream>> streams_;
  std::vector<Stream*> idle_;
  std::deque<std::pair<int64_t, uint64_t>> timeouts_;  // (deadline, request): in send order, so in deadline order
  std::string out_;
  int64_t lastFlush_ = 0;
};

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

}  // namespace

int main(int argc, char** argv) {
  // Never outlive perf: a perf that quit at once (a second Ctrl-C) leaves no driver waiting on a
  // server that does not answer.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  std::ios::sync_with_stdio(false);
  Options options = parseOptions(argc, argv);
  std::vector<std::string> inputs;
  Load load;
  if (!readSchedule(inputs, load)) return 0;
  // Control lines that arrived with "start" sit in std::cin's buffer; the loop reads fd 0 itself.
  std::string rest(size_t(std::max<std::streamsize>(0, std::cin.rdbuf()->in_avail())), '\0');
  rest.resize(size_t(std::cin.readsome(rest.data(), std::streamsize(rest.size()))));
  Driver driver(options, std::move(inputs), std::move(load), std::move(rest));
  return driver.run();
}
