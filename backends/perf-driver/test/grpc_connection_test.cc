// GrpcConnection against a scripted HTTP/2 server (nghttp2's server side, on a thread): gRPC's
// framing both ways, how a call's end becomes a gRPC status, and a connection that dies.
#include "../grpc_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

using ts_perf::GrpcConnection;

std::string grpcFrame(const std::string& message) {
  uint32_t n = uint32_t(message.size());
  std::string out = {0, char(n >> 24), char(n >> 16), char(n >> 8), char(n)};
  return out + message;
}

/** What the server answers to every call: headers, DATA frames cut as given, then trailers (if any). */
struct Script {
  std::vector<std::pair<std::string, std::string>> headers = {{":status", "200"}, {"content-type", "application/grpc"}};
  std::vector<std::string> dataFrames;
  std::vector<std::pair<std::string, std::string>> trailers = {{"grpc-status", "0"}};
  bool closeConnectionOnRequest = false;
};

/** A TCP socket bound to a free loopback port, and that port. */
int boundLoopbackSocket(uint16_t& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

/** One connection's worth of HTTP/2 server: answers each request once the client half-closes it. */
class ScriptedServer {
 public:
  explicit ScriptedServer(Script script) : script_(std::move(script)) {
    listener_ = boundLoopbackSocket(port_);
    listen(listener_, 1);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    done_ = true;
    thread_.join();
    close(listener_);
  }
  std::string port() const { return std::to_string(port_); }
  /** The request bodies, as received (the server's thread wrote them before answering). */
  std::vector<std::string> bodies;
  std::vector<std::string> paths;

 private:
  struct Stream {
    std::string path, body;
    size_t frame = 0;
  };

  void serve() {
    pollfd p{listener_, POLLIN, 0};
    while (!done_ && poll(&p, 1, 20) == 0) {
    }
    if (done_) return;
    fd_ = accept(listener_, nullptr, nullptr);
    nghttp2_session_callbacks* cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* f, const uint8_t* n, size_t nl, const uint8_t* v, size_t vl,
               uint8_t, void* self) {
          if (std::string(reinterpret_cast<const char*>(n), nl) == ":path")
            static_cast<ScriptedServer*>(self)->streams_[f->hd.stream_id].path.assign(reinterpret_cast<const char*>(v), vl);
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cb, [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* d, size_t n, void* self) {
          static_cast<ScriptedServer*>(self)->streams_[id].body.append(reinterpret_cast<const char*>(d), n);
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, [](nghttp2_session* s, const nghttp2_frame* f, void* self) {
      if ((f->hd.type == NGHTTP2_DATA || f->hd.type == NGHTTP2_HEADERS) && (f->hd.flags & NGHTTP2_FLAG_END_STREAM))
        static_cast<ScriptedServer*>(self)->answer(s, f->hd.stream_id);
      return 0;
    });
    nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, nullptr, 0);
    while (!done_ && fd_ >= 0) {
      send();
      pollfd q{fd_, POLLIN, 0};
      if (poll(&q, 1, 20) <= 0) continue;
      uint8_t buf[16384];
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      nghttp2_session_mem_recv(session_, buf, size_t(n));
    }
    nghttp2_session_del(session_);
    if (fd_ >= 0) close(fd_);
  }

  void send() {
    const uint8_t* data;
    ssize_t n;
    while (fd_ >= 0 && (n = nghttp2_session_mem_send(session_, &data)) > 0) ::send(fd_, data, size_t(n), MSG_NOSIGNAL);
  }

  void answer(nghttp2_session* s, int32_t id) {
    paths.push_back(streams_[id].path);
    bodies.push_back(streams_[id].body);
    if (script_.closeConnectionOnRequest) {
      close(fd_);
      fd_ = -1;
      return;
    }
    std::vector<nghttp2_nv> nva;
    for (auto& [k, v] : script_.headers) nva.push_back(nv(k, v));
    nghttp2_data_provider body{};
    body.read_callback = [](nghttp2_session* s, int32_t id, uint8_t* buf, size_t len, uint32_t* flags,
                            nghttp2_data_source*, void* self) -> ssize_t {
      auto* server = static_cast<ScriptedServer*>(self);
      Stream& st = server->streams_[id];
      if (st.frame == server->script_.dataFrames.size()) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        if (!server->script_.trailers.empty()) {
          *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
          std::vector<nghttp2_nv> t;
          for (auto& [k, v] : server->script_.trailers) t.push_back(nv(k, v));
          nghttp2_submit_trailer(s, id, t.data(), t.size());
        }
        return 0;
      }
      const std::string& frame = server->script_.dataFrames[st.frame++];
      EXPECT_LE(frame.size(), len);
      memcpy(buf, frame.data(), frame.size());
      return ssize_t(frame.size());  // one DATA frame per call
    };
    bool trailersOnly = script_.dataFrames.empty() && !script_.trailers.empty();
    if (trailersOnly) {
      for (auto& [k, v] : script_.trailers) nva.push_back(nv(k, v));
      nghttp2_submit_response(s, id, nva.data(), nva.size(), nullptr);
    } else {
      nghttp2_submit_response(s, id, nva.data(), nva.size(), &body);
    }
  }

  static nghttp2_nv nv(const std::string& k, const std::string& v) {
    return {reinterpret_cast<uint8_t*>(const_cast<char*>(k.data())), reinterpret_cast<uint8_t*>(const_cast<char*>(v.data())),
            k.size(), v.size(), NGHTTP2_NV_FLAG_NONE};
  }

  Script script_;
  int listener_ = -1, fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> done_{false};
  std::thread thread_;
  nghttp2_session* session_ = nullptr;
  std::map<int32_t, Stream> streams_;
};

struct Recorder : ts_perf::CallHandler {
  std::vector<std::string> messages;
  std::vector<std::pair<int, std::string>> closes;
  void onMessage(int32_t, std::string_view message, int64_t) override { messages.emplace_back(message); }
  void onClose(int32_t, int code, const std::string& message, int64_t) override { closes.emplace_back(code, message); }
};

/** Runs the client's side until `done`, the connection's end, or `ms`. */
void pump(GrpcConnection& conn, const std::function<bool()>& done, int ms = 5000) {
  for (int i = 0; i < ms / 10 && !done() && !conn.dead(); i++) {
    conn.flush();
    pollfd p{conn.fd(), POLLIN, 0};
    if (poll(&p, 1, 10) > 0) conn.onReadable();
  }
}

TEST(GrpcConnection, ReassemblesMessagesSplitAcrossDataFramesAndSeveralInOneFrame) {
  std::string a = grpcFrame("first message"), b = grpcFrame(std::string(40, 'x')), c = grpcFrame("");
  Script script;
  script.dataFrames = {a.substr(0, 3), a.substr(3) + b.substr(0, 20), b.substr(20) + c};
  ScriptedServer server(script);
  Recorder r;
  GrpcConnection conn("127.0.0.1", server.port(), {{"x-key", "secret"}}, &r);
  ASSERT_EQ(conn.connect(), "");
  int32_t call = conn.startCall("/inference.GRPCInferenceService/ModelInfer", 0);
  conn.send(call, "request bytes", true);
  pump(conn, [&] { return !r.closes.empty(); });
  EXPECT_EQ(r.messages, (std::vector<std::string>{"first message", std::string(40, 'x'), ""}));
  ASSERT_EQ(r.closes.size(), 1u);
  EXPECT_EQ(r.closes[0].first, ts_perf::kOk);
  EXPECT_EQ(server.paths, (std::vector<std::string>{"/inference.GRPCInferenceService/ModelInfer"}));
  EXPECT_EQ(server.bodies, (std::vector<std::string>{grpcFrame("request bytes")}));
  EXPECT_EQ(conn.openCalls(), 0u);
}

TEST(GrpcConnection, SendsEachMessageFramedAndHalfClosesOnlyWhenAsked) {
  ScriptedServer server(Script{});
  Recorder r;
  GrpcConnection conn("127.0.0.1", server.port(), {}, &r);
  ASSERT_EQ(conn.connect(), "");
  int32_t call = conn.startCall("/inference.GRPCInferenceService/ModelStreamInfer", 0);
  conn.send(call, "one", false);
  pump(conn, [] { return false; }, 200);  // the server answers only after the half-close
  EXPECT_TRUE(r.closes.empty());
  conn.send(call, "two", false);
  conn.halfClose(call);
  pump(conn, [&] { return !r.closes.empty(); });
  EXPECT_EQ(server.bodies, (std::vector<std::string>{grpcFrame("one") + grpcFrame("two")}));
  ASSERT_EQ(r.closes.size(), 1u);
}

/** The ends that one half-closed call to a server answering with `script` reports. */
std::vector<std::pair<int, std::string>> endsOfOneCall(const Script& script) {
  ScriptedServer server(script);
  Recorder r;
  GrpcConnection conn("127.0.0.1", server.port(), {}, &r);
  EXPECT_EQ(conn.connect(), "");
  conn.send(conn.startCall("/p", 0), "x", true);
  pump(conn, [&] { return !r.closes.empty(); });
  return r.closes;
}

TEST(GrpcConnection, PercentDecodesGrpcMessageOfATrailersOnlyAnswer) {
  Script script;
  script.trailers = {{"grpc-status", "3"}, {"grpc-message", "bad%20input%3A%20100%25"}};
  EXPECT_EQ(endsOfOneCall(script), (std::vector<std::pair<int, std::string>>{{3, "bad input: 100%"}}));
}

TEST(GrpcConnection, AnHttpErrorWithoutGrpcStatusMapsAsGrpcClientsDo) {
  Script script;
  script.headers = {{":status", "503"}};
  script.trailers = {};
  EXPECT_EQ(endsOfOneCall(script),
            (std::vector<std::pair<int, std::string>>{{ts_perf::kUnavailable, "HTTP status 503"}}));
}

TEST(GrpcConnection, AServerThatGoesAwayFailsEveryOpenCallWithUnavailable) {
  Script script;
  script.closeConnectionOnRequest = true;
  ScriptedServer server(script);
  Recorder r;
  GrpcConnection conn("127.0.0.1", server.port(), {}, &r);
  ASSERT_EQ(conn.connect(), "");
  int32_t open = conn.startCall("/p", 0);
  conn.send(open, "waits", false);
  conn.send(conn.startCall("/p", 0), "ends", true);
  pump(conn, [] { return false; });
  EXPECT_TRUE(conn.dead());
  ASSERT_EQ(r.closes.size(), 2u);
  for (auto& [code, message] : r.closes) EXPECT_EQ(code, ts_perf::kUnavailable);
  EXPECT_EQ(conn.startCall("/p", 0), -1);
}

TEST(GrpcConnection, ConnectionRefusedSaysSo) {
  uint16_t port;
  close(boundLoopbackSocket(port));  // a port nobody listens on
  Recorder r;
  GrpcConnection conn("127.0.0.1", std::to_string(port), {}, &r);
  EXPECT_NE(conn.connect().find("Connection refused"), std::string::npos);
}

}  // namespace
