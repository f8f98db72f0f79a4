// The TRITONBACKEND entry points every Triton Studio backend exports, each with the contract the
// server holds it to (Triton's `backend` repository documents the same contracts in its
// examples). A backend library defines them with one TS_TRITON_BACKEND(FACTORY) line.
#pragma once

#include <cstdint>
#include <memory>

#include "triton_studio/tritonbackend_api.h"

namespace triton_studio::glue {

// One object per loaded model, created in TRITONBACKEND_ModelInitialize and shared by all its
// instances (so Execute must be safe to call concurrently from different instances).
class BackendModel {
 public:
  virtual ~BackendModel() = default;
  // Must send a response for and release every request; must not throw.
  virtual void Execute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests,
                       uint32_t count) = 0;
};

using ModelFactory = std::unique_ptr<BackendModel> (*)(TRITONBACKEND_Model* model);

namespace entry {

// TRITONBACKEND_Initialize: called once when the server loads the library, before any model.
// Contract: return nullptr to accept; an error refuses the backend and every model using it.
// Here: refuses a server whose TRITONBACKEND API major differs or whose minor is lower than the
// one this code was written against, saying which server to use.
TRITONSERVER_Error* Initialize(TRITONBACKEND_Backend* backend);

// TRITONBACKEND_ModelInitialize: called once per model (and version) load, before its instances.
// Contract: an error fails the load with that message and the model is not served; state set
// with TRITONBACKEND_ModelSetState belongs to the backend until ModelFinalize.
// Here: FACTORY reads and checks the config and data (a bad tokenizer or a config that does
// not match the generated step fails the load, naming the fix).
TRITONSERVER_Error* ModelInitialize(TRITONBACKEND_Model* model, ModelFactory factory);

// TRITONBACKEND_ModelFinalize: called once when the model unloads, after every instance ended
// and every request was released. Contract: free what ModelInitialize set.
TRITONSERVER_Error* ModelFinalize(TRITONBACKEND_Model* model);

// TRITONBACKEND_ModelInstanceExecute: called with 1..N requests; never twice at once for one
// instance, but instances of one model run concurrently. Contract: on success the backend owns
// every request: each gets its responses (the last FINAL, or FINAL via the response factory
// when decoupled) and is released with TRITONBACKEND_RequestRelease. Returning an error hands
// ALL requests back to the server, so it is only allowed before any was touched.
// Here: the model's Execute answers and releases each request itself, and nothing throws across.
TRITONSERVER_Error* ModelInstanceExecute(TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests,
                                         uint32_t count);

}  // namespace entry
}  // namespace triton_studio::glue

// Entry points must stay visible although backends compile with hidden visibility; the linker
// version script (cmake/backend.ldscript) then exports exactly these.
#define TS_BACKEND_EXPORT __attribute__((visibility("default")))

// Defines the TRITONBACKEND entry points of a backend library whose models are created by
// FACTORY (a function TRITONBACKEND_Model* -> std::unique_ptr<BackendModel>). Use once per .so.
#define TS_TRITON_BACKEND(FACTORY)                                                                     \
  extern "C" {                                                                                         \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_Initialize(TRITONBACKEND_Backend* backend) {                       \
    return ::triton_studio::glue::entry::Initialize(backend);                                          \
  }                                                                                                    \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model* model) {                      \
    return ::triton_studio::glue::entry::ModelInitialize(model, (FACTORY));                            \
  }                                                                                                    \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model* model) {                        \
    return ::triton_studio::glue::entry::ModelFinalize(model);                                         \
  }                                                                                                    \
  TS_BACKEND_EXPORT TRITONSERVER_Error* TRITONBACKEND_ModelInstanceExecute(                             \
      TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, const uint32_t request_count) { \
    return ::triton_studio::glue::entry::ModelInstanceExecute(instance, requests, request_count);      \
  }                                                                                                    \
  }
