// Errors and logging (see glue/errors.h).
#include "triton_studio/glue/errors.h"

namespace triton_studio::glue {

void Check(TRITONSERVER_Error* err, const char* what) {
  if (err == nullptr) return;
  std::string message = std::string(what) + ": " + TRITONSERVER_ErrorMessage(err);
  TRITONSERVER_Error_Code code = TRITONSERVER_ErrorCode(err);
  TRITONSERVER_ErrorDelete(err);
  throw BackendError(message, code);
}

TRITONSERVER_Error* CurrentExceptionToError(const std::string& context) {
  std::string prefix = context.empty() ? "" : context + ": ";
  try {
    throw;
  } catch (const BackendError& e) {
    return TRITONSERVER_ErrorNew(e.code(), (prefix + e.what()).c_str());
  } catch (const std::bad_alloc&) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNAVAILABLE, (prefix + "out of memory").c_str());
  } catch (const std::exception& e) {
    // Library exceptions (tokenizer errors, JSON errors) describe bad input or data.
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INVALID_ARG, (prefix + e.what()).c_str());
  } catch (...) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, (prefix + "unknown error").c_str());
  }
}

void Log(TRITONSERVER_LogLevel level, const char* file, int line, const std::string& message) {
  if (!TRITONSERVER_LogIsEnabled(level)) return;
  TRITONSERVER_Error* err = TRITONSERVER_LogMessage(level, file, line, message.c_str());
  if (err != nullptr) TRITONSERVER_ErrorDelete(err);
}

void LogIfError(TRITONSERVER_Error* err, const char* what) {
  if (err == nullptr) return;
  TS_LOG(TRITONSERVER_LOG_ERROR, std::string(what) + ": " + TRITONSERVER_ErrorMessage(err));
  TRITONSERVER_ErrorDelete(err);
}

}  // namespace triton_studio::glue
