// ts-perf-driver: the hot path of `triton-studio perf --engine native`. Node's event loop spends
// several wake-ups (socket read, promise hops, timers) on every request, which made perf's client
// CPU per request 1.3-2.8x perf_analyzer's; this process sends and times the requests with gRPC
// C++'s async API (what perf_analyzer uses) and hands the TypeScript side one record per request
// in batches, so Node wakes about every FLUSH_NS instead of several times a request. Everything
// else (load schedules and seeds, inputs, metrics, windows, reports) stays in TypeScript.
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
#include <absl/synchronization/mutex.h>
#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "grpc_service.grpc.pb.h"

namespace {

using inference::GRPCInferenceService;
using inference::ModelInferRequest;
using inference::ModelInferResponse;
using inference::ModelStreamInferResponse;

// Records reach Node at most this late (progress, the stability stop). Each flush wakes Node
// (~250 us of CPU on a 2-core VM: at 20 requests/s, 50 ms flushes cost Node more than the requests).
constexpr int64_t FLUSH_NS = 200'000'000;
constexpr const char* TEXT_OUTPUT = "text_output";

int64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

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

struct Stream;

struct Tag {
  enum Kind { Unary, Timeout, Start, Read, Write, WritesDone, Finish } kind;
  void* owner;
};

struct Request {
  int phase = 0;  // 0 warm-up, 1 measured
  size_t input = 0;
  std::string id;
  double scheduledMs = -1;  // open loop: the send time, ms from the phase's start
  int64_t sentNs = 0;
  int responses = 0;
  std::vector<std::pair<int64_t, std::string>> chunks;  // arrival (ns since send), text
  ModelInferRequest message;
  bool finished = false;
  // ModelInfer
  std::unique_ptr<grpc::ClientContext> context;
  ModelInferResponse response;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<ModelInferResponse>> reader;
  Tag unaryTag{Tag::Unary, this};
  // ModelStreamInfer
  Stream* stream = nullptr;
  bool queued = false;
  bool alarmPending = false;
  std::unique_ptr<grpc::Alarm> alarm;  // only with a timeout: an Alarm costs an allocation
  Tag timeoutTag{Tag::Timeout, this};
};

struct Stream {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<ModelInferRequest, ModelStreamInferResponse>> call;
  ModelStreamInferResponse response;
  grpc::Status status;
  bool started = false, writing = false, closed = false, idle = false, ending = false;
  std::deque<Request*> queue;  // waiting for the stream to start or its previous write
  std::unordered_map<std::string, Request*> pending;
  std::unordered_set<std::string> abandoned;  // timed out: their late responses are dropped
  Tag startTag{Tag::Start, this}, readTag{Tag::Read, this}, writeTag{Tag::Write, this},
      writesDoneTag{Tag::WritesDone, this}, finishTag{Tag::Finish, this};
};

struct Options {
  std::string url;
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

class Driver {
 public:
  Driver(Options options, std::vector<ModelInferRequest> inputs, Load load)
      : options_(std::move(options)), inputs_(std::move(inputs)), load_(std::move(load)) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    stub_ = GRPCInferenceService::NewStub(
        grpc::CreateCustomChannel(options_.url, grpc::InsecureChannelCredentials(), args));
    std::random_device rd;
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%08x", unsigned(rd()));
    idPrefix_ = std::string(prefix) + "-n";
  }

  int run() {
    std::thread events([this] { eventLoop(); });
    std::thread control([this] { readControl(); });
    control.detach();  // blocks on stdin; the process exits without joining it

    if (load_.closed ? load_.warmup > 0 : !load_.warmupTimes.empty()) runPhase(0);
    emitLine("W\n");
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return go_ || stop_; });
    }
    if (!stop_) runPhase(1);
    emitLine("E\n");
    shutdown();
    events.join();
    return 0;
  }

 private:
  // --- phases -----------------------------------------------------------------------------------

  void runPhase(int phase) {
    std::unique_lock<std::mutex> lock(mu_);
    phase_ = phase;
    issued_ = 0;
    issuing_ = true;
    origin_ = nowNs();
    if (load_.closed) {
      int64_t total = phase == 0 ? load_.warmup : load_.requests;
      deadline_ = phase == 1 && total < 0 && load_.durationMs > 0
                      ? origin_ + int64_t(load_.durationMs * 1e6)
                      : 0;
      for (int i = 0; i < load_.concurrency && more(); i++) issue(-1);
      issuing_ = false;
    } else {
      const std::vector<double>& times = phase == 0 ? load_.warmupTimes : load_.times;
      lock.unlock();
      for (double at : times) {
        int64_t due = origin_ + int64_t(at * 1e6);
        timespec ts{time_t(due / 1'000'000'000), long(due % 1'000'000'000)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
        }
        lock.lock();
        bool stopped = stopNow();
        if (!stopped) issue(at);
        lock.unlock();
        if (stopped) break;
      }
      lock.lock();
      issuing_ = false;
    }
    cv_.wait(lock, [this] { return !issuing_ && inflight_ == 0; });
    flushLocked(lock, true);
  }

  bool stopNow() const { return stop_ || (phase_ == 0 && cancelled_); }

  /** Closed loop: whether a finished request's slot sends another. */
  bool more() const {
    if (stopNow()) return false;
    int64_t total = phase_ == 0 ? load_.warmup : load_.requests;
    if (total >= 0 && issued_ >= total) return false;
    return deadline_ == 0 || nowNs() < deadline_;
  }

  void issue(double scheduledMs) {
    auto* r = new Request;
    r->phase = phase_;
    r->input = nextInput_++ % inputs_.size();
    r->id = idPrefix_ + std::to_string(++counter_);
    r->scheduledMs = scheduledMs;
    r->message = inputs_[r->input];
    r->message.set_id(r->id);
    issued_++;
    inflight_++;
    if (!options_.stream) {
      r->context = std::make_unique<grpc::ClientContext>();
      for (auto& [k, v] : options_.headers) r->context->AddMetadata(k, v);
      if (options_.timeoutMs > 0)
        r->context->set_deadline(std::chrono::system_clock::now() +
                                 std::chrono::milliseconds(options_.timeoutMs));
      r->reader = stub_->PrepareAsyncModelInfer(r->context.get(), r->message, &cq_);
      r->sentNs = nowNs();
      r->reader->StartCall();
      r->reader->Finish(&r->response, &r->status, &r->unaryTag);
      return;
    }
    Stream* s = acquire();
    r->stream = s;
    s->pending[r->id] = r;
    if (options_.timeoutMs > 0) {
      r->alarmPending = true;
      r->alarm = std::make_unique<grpc::Alarm>();
      r->alarm->Set(&cq_, std::chrono::system_clock::now() + std::chrono::milliseconds(options_.timeoutMs),
                   &r->timeoutTag);
    }
    r->queued = true;
    s->queue.push_back(r);
    pump(s);
  }

  // --- streams ----------------------------------------------------------------------------------

  Stream* acquire() {
    while (!idle_.empty()) {
      Stream* s = idle_.back();
      idle_.pop_back();
      s->idle = false;
      if (!s->closed) return s;
    }
    size_t open = 0;
    Stream* least = nullptr;
    for (auto& s : streams_) {
      if (s->closed) continue;
      open++;
      if (!least || s->pending.size() < least->pending.size()) least = s.get();
    }
    if (open < options_.maxStreams || !least) {
      auto s = std::make_unique<Stream>();
      for (auto& [k, v] : options_.headers) s->context.AddMetadata(k, v);
      s->call = stub_->PrepareAsyncModelStreamInfer(&s->context, &cq_);
      s->call->StartCall(&s->startTag);
      streams_.push_back(std::move(s));
      return streams_.back().get();
    }
    return least;
  }

  void release(Stream* s) {
    if (!s->closed && !s->ending && s->pending.empty() && !s->idle) {
      s->idle = true;
      idle_.push_back(s);
    }
  }

  /** Writes the next queued request when the stream is ready and no write is outstanding. */
  void pump(Stream* s) {
    while (s->started && !s->writing && !s->closed && !s->queue.empty()) {
      Request* r = s->queue.front();
      s->queue.pop_front();
      r->queued = false;
      if (r->finished) {  // timed out while queued
        maybeDelete(r);
        continue;
      }
      s->writing = true;
      r->sentNs = nowNs();
      s->call->Write(r->message, &s->writeTag);
    }
  }

  void onStreamResponse(Stream* s, int64_t arrived) {
    const ModelStreamInferResponse& m = s->response;
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

  void onStreamClosed(Stream* s) {
    s->closed = true;
    int code = s->status.error_code();
    std::string message = s->status.error_message();
    std::vector<Request*> failed;
    for (auto& [id, r] : s->pending) failed.push_back(r);
    s->pending.clear();
    s->queue.clear();
    int64_t now = nowNs();
    for (Request* r : failed) {
      r->queued = false;
      complete(r, now, "status", code, message);
    }
  }

  // --- completion -------------------------------------------------------------------------------

  /** A request ended: record it (measured phase), refill its closed-loop slot, free it. */
  void complete(Request* r, int64_t endNs, const char* kind, int code, const std::string& message) {
    r->finished = true;
    if (r->alarmPending) r->alarm->Cancel();
    inflight_--;
    if (r->phase == 1) {
      if (kind && std::strcmp(kind, "status") == 0 && code == grpc::StatusCode::UNAVAILABLE) stop_ = true;
      record(r, endNs, kind, code, message);
    }
    if (load_.closed && r->phase == phase_ && !issuing_ && more()) issue(-1);
    maybeDelete(r);
    if (!issuing_ && inflight_ == 0) cv_.notify_all();
  }

  void maybeDelete(Request* r) {
    if (r->finished && !r->alarmPending && !r->queued) delete r;
  }

  void record(Request* r, int64_t endNs, const char* kind, int code, const std::string& message) {
    // A request that never went out (its stream failed first) starts when it was due.
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

  // --- the completion queue ---------------------------------------------------------------------

  /** Handles completions; wakes for nothing else than a flush that is due (a wake-up costs CPU). */
  void eventLoop() {
    int64_t flushDue = 0;  // 0: nothing waits to be flushed
    for (;;) {
      void* tag;
      bool ok;
      auto deadline = flushDue ? std::chrono::system_clock::now() + std::chrono::nanoseconds(flushDue - nowNs())
                               : std::chrono::system_clock::time_point::max();
      auto status = cq_.AsyncNext(&tag, &ok, deadline);
      if (status == grpc::CompletionQueue::SHUTDOWN) return;
      std::unique_lock<std::mutex> lock(mu_);
      if (status == grpc::CompletionQueue::GOT_EVENT) handle(static_cast<Tag*>(tag), ok);
      flushLocked(lock, false);
      flushDue = out_.empty() ? 0 : lastFlush_ + FLUSH_NS;
    }
  }

  void handle(Tag* tag, bool ok) {
    int64_t now = nowNs();
    switch (tag->kind) {
      case Tag::Unary: {
        auto* r = static_cast<Request*>(tag->owner);
        if (r->status.ok()) {
          ResponseText t = readResponse(r->response);
          r->responses = 1;
          if (t.hasText && !t.text.empty()) r->chunks.emplace_back(now - r->sentNs, std::move(t.text));
          complete(r, now, nullptr, 0, "");
        } else {
          bool deadline = r->status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
          complete(r, now, deadline ? "timeout" : "status", r->status.error_code(), r->status.error_message());
        }
        break;
      }
      case Tag::Timeout: {
        auto* r = static_cast<Request*>(tag->owner);
        r->alarmPending = false;
        if (ok && !r->finished) {
          Stream* s = r->stream;
          if (s->pending.erase(r->id)) s->abandoned.insert(r->id);
          release(s);
          complete(r, now, "timeout", grpc::StatusCode::DEADLINE_EXCEEDED, "");
        } else {
          maybeDelete(r);
        }
        break;
      }
      case Tag::Start: {
        auto* s = static_cast<Stream*>(tag->owner);
        if (!ok) {
          s->call->Finish(&s->status, &s->finishTag);
          break;
        }
        s->started = true;
        s->call->Read(&s->response, &s->readTag);
        pump(s);
        break;
      }
      case Tag::Write: {
        auto* s = static_cast<Stream*>(tag->owner);
        s->writing = false;
        if (ok) pump(s);  // a failed write: the read fails too and finishes the stream
        break;
      }
      case Tag::Read: {
        auto* s = static_cast<Stream*>(tag->owner);
        if (!ok) {
          s->call->Finish(&s->status, &s->finishTag);
          break;
        }
        onStreamResponse(s, now);
        s->call->Read(&s->response, &s->readTag);
        break;
      }
      case Tag::WritesDone:
        break;
      case Tag::Finish: {
        auto* s = static_cast<Stream*>(tag->owner);
        onStreamClosed(s);
        cv_.notify_all();
        break;
      }
    }
  }

  /**
   * Hands the records gathered so far to stdout, at most every FLUSH_NS unless `force`. Lock order
   * is mu_ then writeMu_ (taken before mu_ is let go, so chunks reach stdout in order, W and E after
   * the records before them), and mu_ is never taken while writeMu_ is held.
   */
  void flushLocked(std::unique_lock<std::mutex>& lock, bool force, const char* line = nullptr) {
    int64_t now = nowNs();
    if (!line && (out_.empty() || (!force && now - lastFlush_ < FLUSH_NS && out_.size() < 65536))) return;
    lastFlush_ = now;
    std::string chunk;
    chunk.swap(out_);
    if (line) chunk += line;
    std::unique_lock<std::mutex> writing(writeMu_);
    lock.unlock();
    writeAll(chunk);
    writing.unlock();
    lock.lock();
  }

  void emitLine(const char* line) {
    std::unique_lock<std::mutex> lock(mu_);
    flushLocked(lock, true, line);
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

  /** Half-closes every stream and waits (briefly) for the server to end them: never a cancel. */
  void shutdown() {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto& s : streams_) {
      if (s->closed || !s->started) continue;
      s->ending = true;
      if (!s->writing) s->call->WritesDone(&s->writesDoneTag);
    }
    auto allClosed = [this] {
      return std::all_of(streams_.begin(), streams_.end(),
                         [](const std::unique_ptr<Stream>& s) { return s->closed || !s->started; });
    };
    cv_.wait_for(lock, std::chrono::seconds(5), allClosed);
    bool clean = allClosed();
    lock.unlock();
    if (!clean) std::_Exit(0);  // a stream the server never ended: leave without cancelling it
    cq_.Shutdown();
  }

  void readControl() {
    std::string line;
    while (std::getline(std::cin, line)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (line == "go") go_ = true;
      if (line == "stop") {
        stop_ = true;
        cancelled_ = true;
      }
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cancelled_ = true;
    cv_.notify_all();
  }

  Options options_;
  std::vector<ModelInferRequest> inputs_;
  Load load_;
  std::unique_ptr<GRPCInferenceService::Stub> stub_;
  grpc::CompletionQueue cq_;
  std::string idPrefix_;

  std::mutex mu_;  // everything below, and every gRPC call made on the driver's streams
  std::mutex writeMu_;
  std::condition_variable cv_;
  bool go_ = false, stop_ = false, cancelled_ = false;
  int phase_ = 0;
  bool issuing_ = false;
  int64_t origin_ = 0, deadline_ = 0, issued_ = 0, inflight_ = 0;
  size_t nextInput_ = 0;
  uint64_t counter_ = 0;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<Stream*> idle_;
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

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // Debian's abseil checks every mutex gRPC takes for lock-order cycles (~3% of the driver's CPU in a
  // profile); a load generator has no use for that debugging aid.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  Options options;
  bool method = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--url") {
      options.url = value();
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
      std::transform(key.begin(), key.end(), key.begin(), ::tolower);  // gRPC metadata keys are lower-case
      options.headers.emplace_back(key, h.substr(eq + 1));
    } else {
      fail("unknown argument '" + a + "'");
    }
  }
  if (options.url.empty() || !method) fail("usage: ts-perf-driver --url HOST:PORT --method infer|stream");

  std::vector<inference::ModelInferRequest> inputs;
  Load load;
  bool haveLoad = false;
  std::string line;
  while (std::getline(std::cin, line) && line != "start") {
    if (line.rfind("request ", 0) == 0) {
      size_t n = std::stoul(line.substr(8));
      std::string bytes(n, '\0');
      if (!std::cin.read(bytes.data(), std::streamsize(n))) fail("stdin ended inside a request");
      inference::ModelInferRequest request;
      if (!request.ParseFromString(bytes)) fail("a request is not an encoded inference.ModelInferRequest");
      inputs.push_back(std::move(request));
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
  if (line != "start") return 0;  // the TypeScript side went away before starting
  if (inputs.empty()) fail("no request given");
  if (!haveLoad) fail("no load given");
  Driver driver(options, std::move(inputs), std::move(load));
  return driver.run();
}
