// The TRITONBACKEND entry points (contracts in glue/entry_points.h).
#include "triton_studio/glue/entry_points.h"

#include <sstream>
#include <string>

#include "triton_studio/glue/errors.h"

namespace triton_studio::glue::entry {

TRITONSERVER_Error* Initialize(TRITONBACKEND_Backend* backend) {
  const char* name = "?";
  if (TRITONSERVER_Error* err = TRITONBACKEND_BackendName(backend, &name)) TRITONSERVER_ErrorDelete(err);
  uint32_t major = 0, minor = 0;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ApiVersion(&major, &minor)) return err;
  if (major != TS_TRITONBACKEND_API_MAJOR || minor < TS_TRITONBACKEND_API_MINOR) {
    std::ostringstream message;
    message << "backend '" << name << "' was built for TRITONBACKEND API " << TS_TRITONBACKEND_API_MAJOR << "."
            << TS_TRITONBACKEND_API_MINOR << " but this server provides " << major << "." << minor
            << "; use Triton 2.51 or newer with the same major API version, or rebuild the backend";
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_UNSUPPORTED, message.str().c_str());
  }
  TS_LOG(TRITONSERVER_LOG_INFO, std::string("Triton Studio backend '") + name + "' initialized (TRITONBACKEND API " +
                                    std::to_string(major) + "." + std::to_string(minor) + ")");
  return nullptr;
}

TRITONSERVER_Error* ModelInitialize(TRITONBACKEND_Model* model, ModelFactory factory) {
  const char* name = "?";
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelName(model, &name)) TRITONSERVER_ErrorDelete(err);
  try {
    std::unique_ptr<BackendModel> state = factory(model);
    Check(TRITONBACKEND_ModelSetState(model, state.get()), "storing the model state");
    state.release();  // owned by Triton's model object until ModelFinalize
    return nullptr;
  } catch (...) {
    return CurrentExceptionToError(std::string("cannot load model '") + name + "'");
  }
}

TRITONSERVER_Error* ModelFinalize(TRITONBACKEND_Model* model) {
  void* state = nullptr;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelState(model, &state)) return err;
  delete static_cast<BackendModel*>(state);
  return nullptr;
}

TRITONSERVER_Error* ModelInstanceExecute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests,
                                         uint32_t count) {
  // Returning an error here would hand the requests back to Triton; everything after this point
  // answers and releases each request itself instead.
  TRITONBACKEND_Model* model = nullptr;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelInstanceModel(instance, &model)) return err;
  void* state = nullptr;
  if (TRITONSERVER_Error* err = TRITONBACKEND_ModelState(model, &state)) return err;
  if (state == nullptr) {
    return TRITONSERVER_ErrorNew(TRITONSERVER_ERROR_INTERNAL, "model state missing (ModelInitialize failed?)");
  }
  try {
    static_cast<BackendModel*>(state)->Execute(instance, requests, count);
  } catch (...) {
    // Execute answers requests itself and is written not to throw; should it anyway, an exception
    // must not cross into the server (that would abort it). Some requests may be released already,
    // so handing them back with an error is not an option either: log and go on.
    TRITONSERVER_Error* err = CurrentExceptionToError("unexpected failure in Execute");
    TS_LOG(TRITONSERVER_LOG_ERROR, TRITONSERVER_ErrorMessage(err));
    TRITONSERVER_ErrorDelete(err);
  }
  return nullptr;
}

}  // namespace triton_studio::glue::entry
