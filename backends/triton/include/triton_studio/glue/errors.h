// Errors and logging: exceptions inside a backend, TRITONSERVER_Error at the C boundary (the
// entry points and the per-request loop convert), messages through the server's log.
#pragma once

#include <stdexcept>
#include <string>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

// An error with a Triton error code. Thrown anywhere inside a backend; the entry points and the
// per-request loop turn it into a TRITONSERVER_Error (model load failure or error response).
class BackendError : public std::runtime_error {
 public:
  explicit BackendError(const std::string& message, TRITONSERVER_Error_Code code = TRITONSERVER_ERROR_INVALID_ARG)
      : std::runtime_error(message), code_(code) {}
  TRITONSERVER_Error_Code code() const { return code_; }

 private:
  TRITONSERVER_Error_Code code_;
};

// Throws BackendError (taking ownership of `err`) when a Triton call failed.
void Check(TRITONSERVER_Error* err, const char* what);

// The currently handled exception as a new TRITONSERVER_Error (call inside a catch block).
TRITONSERVER_Error* CurrentExceptionToError(const std::string& context);

// Logs and deletes `err` when a call failed whose failure has nobody else to tell.
void LogIfError(TRITONSERVER_Error* err, const char* what);

void Log(TRITONSERVER_LogLevel level, const char* file, int line, const std::string& message);
#define TS_LOG(level, message) ::triton_studio::glue::Log(level, __FILE__, __LINE__, (message))

}  // namespace triton_studio::glue
