// ts-perf-driver's loop: one thread, an epoll over stdin, a timerfd for the send schedule and the
// HTTP/2 connection of grpc_connection.h; one record per measured request flushed in batches.
#include "driver.h"

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


#include "driver_records.h"
#include "grpc_connection.h"
#include "grpc_service.pb.h"

namespace ts_perf {
namespace {

using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;
using ts_perf::monotonicNs;

// Records reach Node at most this late (progress, the stability stop). Each flush wakes Node
// (~250-450 us of CPU on a 2-core VM: at 20 requests/s, 200 ms flushes cost Node 2.2 ms/s).
constexpr int64_t FLUSH_NS = 1'000'000'000;
constexpr size_t FLUSH_BYTES = 65536;
constexpr const char* INFER_PATH = "/inference.GRPCInferenceService/ModelInfer";
constexpr const char* STREAM_PATH = "/inference.GRPCInferenceService/ModelStreamInfer";


struct Stream {
  int32_t call;
  bool idle = false, closed = false;
  std::unordered_map<std::string, Request*> pending;
  std::unordered_set<std::string> abandoned;  // timed out: their late responses are dropped
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
    appendRecord(out_, *r, origin_, endNs, kind, code, message);
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


}  // namespace

int runDriver(Options options, std::vector<std::string> inputs, Load load, std::string stdinRest) {
  Driver driver(std::move(options), std::move(inputs), std::move(load), std::move(stdinRest));
  return driver.run();
}

}  // namespace ts_perf
