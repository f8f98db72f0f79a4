// See driver_records.h.
#include "driver_records.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ts_perf {

using inference::ModelInferResponse;

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

namespace {

constexpr const char* TEXT_OUTPUT = "text_output";

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

}  // namespace

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


void appendRecord(std::string& o, const Request& req, int64_t origin, int64_t endNs, const char* kind, int code,
                const std::string& message) {
const Request* r = &req;
  // A request that never went out (its connection failed first) starts when it was due.
  int64_t sent = r->sentNs ? r->sentNs : endNs;
  o += "{\"i\":";
  o += std::to_string(r->input);
  o += ",\"s\":";
  appendMs(o, sent - origin);
  o += ",\"l\":";
  appendMs(o, endNs - sent);
  if (r->scheduledMs >= 0) {
    o += ",\"lag\":";
    appendMs(o, std::max<int64_t>(0, sent - origin - int64_t(r->scheduledMs * 1e6)));
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

void writeAll(const std::string& data) {
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

}  // namespace ts_perf
