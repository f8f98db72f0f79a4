// One HTTP/2 connection carrying gRPC calls (see grpc_connection.h): nghttp2 callbacks, gRPC
// framing and status.
#include "grpc_connection.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>

namespace ts_perf {
namespace {

nghttp2_nv header(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

/** grpc-message is percent-encoded (gRPC over HTTP/2, "Responses"). */
std::string percentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '%' && i + 2 < s.size() && isxdigit(uint8_t(s[i + 1])) && isxdigit(uint8_t(s[i + 2]))) {
      out += char(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/** The status a gRPC client derives from an HTTP status when there is no grpc-status (gRPC's http-grpc-status-mapping). */
int codeForHttpStatus(int status) {
  switch (status) {
    case 400: return kInternal;
    case 401: return 16;  // UNAUTHENTICATED
    case 403: return 7;   // PERMISSION_DENIED
    case 404: return 12;  // UNIMPLEMENTED
    case 429:
    case 502:
    case 503:
    case 504: return kUnavailable;
    default: return kUnknown;
  }
}

}  // namespace

GrpcConnection::GrpcConnection(std::string host, std::string port,
                               std::vector<std::pair<std::string, std::string>> metadata, CallHandler* handler)
    : host_(std::move(host)), port_(std::move(port)), metadata_(std::move(metadata)), handler_(handler) {
  authority_ = (host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_) + ":" + port_;
}

GrpcConnection::~GrpcConnection() {
  if (session_) nghttp2_session_del(session_);
  if (fd_ >= 0) ::close(fd_);
}

std::string GrpcConnection::connect() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host_.c_str(), port_.c_str(), &hints, &found); rc != 0)
    return "cannot resolve " + host_ + ": " + gai_strerror(rc);
  std::string error = "no address";
  for (addrinfo* a = found; a && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      fd_ = fd;
    } else {
      error = std::strerror(errno);
      ::close(fd);
    }
  }
  freeaddrinfo(found);
  if (fd_ < 0) return "failed to connect to " + authority_ + ": " + error;
  int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);

  nghttp2_session_callbacks* callbacks;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onData);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose);
  int rc = nghttp2_session_client_new(&session_, callbacks, this);
  nghttp2_session_callbacks_del(callbacks);
  if (rc != 0) return std::string("nghttp2: ") + nghttp2_strerror(rc);
  // The largest windows there are: the server's messages never wait for a WINDOW_UPDATE, and this
  // side never spends a write on one.
  nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                       {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, NGHTTP2_MAX_WINDOW_SIZE}};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 2);
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0, NGHTTP2_MAX_WINDOW_SIZE);
  flush();
  return dead_ ? deathReason_ : "";
}

int32_t GrpcConnection::startCall(const char* path, int64_t timeoutMs) {
  if (dead_) return -1;
  static const std::string kMethod = ":method", kPost = "POST", kScheme = ":scheme", kHttp = "http",
                           kPath = ":path", kAuthority = ":authority", kContentType = "content-type",
                           kGrpc = "application/grpc", kTe = "te", kTrailers = "trailers",
                           kUserAgent = "user-agent", kAgent = "ts-perf-driver", kTimeout = "grpc-timeout";
  std::string pathValue = path, timeout = std::to_string(timeoutMs) + "m";
  std::vector<nghttp2_nv> nva = {header(kMethod, kPost),       header(kScheme, kHttp),
                                 header(kPath, pathValue),     header(kAuthority, authority_),
                                 header(kContentType, kGrpc),  header(kTe, kTrailers),
                                 header(kUserAgent, kAgent)};
  if (timeoutMs > 0) nva.push_back(header(kTimeout, timeout));
  for (auto& [key, value] : metadata_) nva.push_back(header(key, value));
  nghttp2_data_provider body{};
  body.read_callback = readOut;
  int32_t id = nghttp2_submit_request(session_, nullptr, nva.data(), nva.size(), &body, nullptr);
  if (id < 0) return -1;
  calls_.emplace(id, std::make_unique<Call>());
  return id;
}

void GrpcConnection::send(int32_t call, std::string_view message, bool last) {
  auto it = calls_.find(call);
  if (it == calls_.end()) return;
  Call& c = *it->second;
  uint32_t n = uint32_t(message.size());
  char prefix[5] = {0, char(n >> 24), char(n >> 16), char(n >> 8), char(n)};  // uncompressed, big-endian length
  c.out.append(prefix, 5);
  c.out.append(message);
  c.last = c.last || last;
  if (c.deferred) {
    c.deferred = false;
    nghttp2_session_resume_data(session_, call);
  }
}

void GrpcConnection::halfClose(int32_t call) {
  auto it = calls_.find(call);
  if (it == calls_.end() || it->second->last) return;
  it->second->last = true;
  if (it->second->deferred) {
    it->second->deferred = false;
    nghttp2_session_resume_data(session_, call);
  }
}

ssize_t GrpcConnection::readOut(nghttp2_session*, int32_t stream, uint8_t* buf, size_t length, uint32_t* flags,
                                nghttp2_data_source*, void* self) {
  auto* conn = static_cast<GrpcConnection*>(self);
  auto it = conn->calls_.find(stream);
  if (it == conn->calls_.end()) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 0;
  }
  Call& c = *it->second;
  size_t n = std::min(length, c.out.size() - c.outAt);
  std::memcpy(buf, c.out.data() + c.outAt, n);
  c.outAt += n;
  if (c.outAt == c.out.size()) {
    c.out.clear();
    c.outAt = 0;
    if (c.last) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
    } else if (n == 0) {
      c.deferred = true;  // send() resumes it
      return NGHTTP2_ERR_DEFERRED;
    }
  }
  return ssize_t(n);
}

int GrpcConnection::onHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t nameLength,
                             const uint8_t* value, size_t valueLength, uint8_t, void* self) {
  auto* conn = static_cast<GrpcConnection*>(self);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  auto it = conn->calls_.find(frame->hd.stream_id);
  if (it == conn->calls_.end()) return 0;
  std::string_view key(reinterpret_cast<const char*>(name), nameLength);
  std::string_view text(reinterpret_cast<const char*>(value), valueLength);
  if (key == ":status") it->second->httpStatus = std::atoi(std::string(text).c_str());
  if (key == "grpc-status") it->second->grpcStatus = std::atoi(std::string(text).c_str());
  if (key == "grpc-message") it->second->grpcMessage = percentDecode(text);
  return 0;
}

int GrpcConnection::onData(nghttp2_session*, uint8_t, int32_t stream, const uint8_t* data, size_t length,
                           void* self) {
  auto* conn = static_cast<GrpcConnection*>(self);
  auto it = conn->calls_.find(stream);
  if (it == conn->calls_.end()) return 0;
  Call* c = it->second.get();  // stable: the handler may start calls (the map may rehash), never end one
  c->in.append(reinterpret_cast<const char*>(data), length);
  size_t at = 0;
  while (c->in.size() - at >= 5) {
    const auto* p = reinterpret_cast<const uint8_t*>(c->in.data() + at);
    size_t n = (size_t(p[1]) << 24) | (size_t(p[2]) << 16) | (size_t(p[3]) << 8) | size_t(p[4]);
    if (c->in.size() - at - 5 < n) break;
    conn->handler_->onMessage(stream, std::string_view(c->in.data() + at + 5, n), conn->readNs_);
    at += 5 + n;
  }
  c->in.erase(0, at);
  return 0;
}

int GrpcConnection::onStreamClose(nghttp2_session*, int32_t stream, uint32_t error, void* self) {
  auto* conn = static_cast<GrpcConnection*>(self);
  auto it = conn->calls_.find(stream);
  if (it == conn->calls_.end()) return 0;
  std::unique_ptr<Call> c = std::move(it->second);
  conn->calls_.erase(it);
  int code;
  std::string message;
  if (c->grpcStatus >= 0) {
    code = c->grpcStatus;
    message = c->grpcMessage;
  } else if (error == NGHTTP2_REFUSED_STREAM) {
    code = kUnavailable;
    message = "the server refused the stream";
  } else if (error == NGHTTP2_CANCEL) {
    code = kCancelled;
    message = "the server cancelled the call";
  } else if (error != NGHTTP2_NO_ERROR) {
    code = kInternal;
    message = std::string("HTTP/2 stream error: ") + nghttp2_http2_strerror(error);
  } else if (c->httpStatus != 200) {
    code = codeForHttpStatus(c->httpStatus);
    message = "HTTP status " + std::to_string(c->httpStatus);
  } else {
    code = kUnknown;
    message = "the server ended the call without a gRPC status";
  }
  conn->handler_->onClose(stream, code, message, conn->readNs_);
  return 0;
}

void GrpcConnection::onReadable() {
  uint8_t buf[65536];
  while (!dead_) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      readNs_ = monotonicNs();
      ssize_t used = nghttp2_session_mem_recv(session_, buf, size_t(n));
      if (used < 0) die(std::string("HTTP/2 error: ") + nghttp2_strerror(int(used)), readNs_);
      if (size_t(n) < sizeof buf) break;  // drained: skip the read that would say EAGAIN
    } else if (n == 0) {
      die("Socket closed", monotonicNs());
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      break;
    } else if (errno != EINTR) {
      die(std::strerror(errno), monotonicNs());
    }
  }
  flush();  // settings and ping acknowledgements, and what the handler sent
}

bool GrpcConnection::flush() {
  if (dead_) return false;
  for (;;) {
    const uint8_t* data;
    ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      die(std::string("HTTP/2 error: ") + nghttp2_strerror(int(n)), monotonicNs());
      return false;
    }
    if (n == 0) break;
    pending_.append(reinterpret_cast<const char*>(data), size_t(n));
  }
  while (pendingAt_ < pending_.size()) {
    ssize_t n = ::send(fd_, pending_.data() + pendingAt_, pending_.size() - pendingAt_, MSG_NOSIGNAL);
    if (n > 0) {
      pendingAt_ += size_t(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return true;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      die(n < 0 && errno != EPIPE ? std::strerror(errno) : "Socket closed", monotonicNs());
      return false;
    }
  }
  pending_.clear();
  pendingAt_ = 0;
  return false;
}

void GrpcConnection::die(const std::string& reason, int64_t nowNs) {
  if (dead_) return;
  dead_ = true;
  deathReason_ = reason;
  ::close(fd_);  // also leaves the owner's epoll set
  fd_ = -1;
  auto calls = std::move(calls_);
  calls_.clear();
  for (auto& [id, call] : calls) handler_->onClose(id, kUnavailable, reason, nowNs);
}

}  // namespace ts_perf
