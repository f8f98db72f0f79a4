// One plaintext HTTP/2 connection that carries gRPC calls (nghttp2 for HTTP/2; gRPC's own framing,
// a 5-byte length prefix per message, is done here), driven by its owner's event loop on one thread.
//
// Why not gRPC C++: its completion queue is served by a poller thread, so every send from a timed
// thread kicks that thread awake (eventfd) to hand back the write's completion, and its waits round
// to whole milliseconds. At low request rates each wake-up starts from cold caches, which made the
// driver's CPU per request 1.2-2x perf_analyzer's. With this connection the driver wakes once for a
// send (a timerfd, to the nanosecond) and once for a response, on one thread.
#pragma once

#include <nghttp2/nghttp2.h>
#include <time.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ts_perf {

/** CLOCK_MONOTONIC in ns: every time the driver takes or compares. */
inline int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/** gRPC status codes used here (grpc/status.h). */
enum GrpcCode : int { kOk = 0, kCancelled = 1, kUnknown = 2, kDeadlineExceeded = 4, kInternal = 13, kUnavailable = 14 };

/** What a call reports to its owner, on the loop's thread. */
class CallHandler {
 public:
  virtual ~CallHandler() = default;
  /** One whole gRPC message of call `call`; `arrivedNs` is when its last bytes were read. */
  virtual void onMessage(int32_t call, std::string_view message, int64_t arrivedNs) = 0;
  /** The call ended: its gRPC status (from the trailers, or derived as gRPC clients do). */
  virtual void onClose(int32_t call, int code, const std::string& message, int64_t nowNs) = 0;
};

class GrpcConnection {
 public:
  GrpcConnection(std::string host, std::string port, std::vector<std::pair<std::string, std::string>> metadata,
                 CallHandler* handler);
  ~GrpcConnection();
  GrpcConnection(const GrpcConnection&) = delete;
  GrpcConnection& operator=(const GrpcConnection&) = delete;

  /** Connects (blocking) and sends the HTTP/2 preface; an empty string, or why it failed. */
  std::string connect();
  int fd() const { return fd_; }
  bool dead() const { return dead_; }
  /** Why the connection ended (after dead()). */
  const std::string& deathReason() const { return deathReason_; }

  /**
   * Starts a call to `path` (e.g. /inference.GRPCInferenceService/ModelInfer) and returns its id, or
   * -1 if the connection is dead. `timeoutMs` > 0 sends grpc-timeout, so the server gives up too.
   */
  int32_t startCall(const char* path, int64_t timeoutMs);
  /** Queues one message on the call; `last` half-closes it after the message. */
  void send(int32_t call, std::string_view message, bool last);
  /** Half-closes the call (the server then ends it): never a cancel. */
  void halfClose(int32_t call);
  size_t openCalls() const { return calls_.size(); }

  /** Reads what the socket has, reporting messages and ends to the handler. */
  void onReadable();
  /** Writes what nghttp2 has queued; true if the socket is full (wait for EPOLLOUT). */
  bool flush();

 private:
  struct Call {
    std::string out;  // framed messages not yet taken by nghttp2
    size_t outAt = 0;
    bool last = false;
    bool deferred = false;
    std::string in;  // bytes of a message still arriving
    int httpStatus = 0;
    int grpcStatus = -1;
    std::string grpcMessage;
  };

  void die(const std::string& reason, int64_t nowNs);
  static ssize_t readOut(nghttp2_session*, int32_t, uint8_t*, size_t, uint32_t*, nghttp2_data_source*, void*);
  static int onHeader(nghttp2_session*, const nghttp2_frame*, const uint8_t*, size_t, const uint8_t*, size_t,
                      uint8_t, void*);
  static int onData(nghttp2_session*, uint8_t, int32_t, const uint8_t*, size_t, void*);
  static int onStreamClose(nghttp2_session*, int32_t, uint32_t, void*);

  std::string host_, port_, authority_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  CallHandler* handler_;
  int fd_ = -1;
  nghttp2_session* session_ = nullptr;
  std::unordered_map<int32_t, std::unique_ptr<Call>> calls_;  // pointers stay put when the map grows
  std::string pending_;  // bytes nghttp2 produced that the socket has not taken yet
  size_t pendingAt_ = 0;
  int64_t readNs_ = 0;  // when the bytes being processed were read
  bool dead_ = false;
  std::string deathReason_;
};

}  // namespace ts_perf
