// What the server tells a backend about a model: its configuration and where its files are.
#include <memory>

#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/model_config.h"

namespace triton_studio::glue {

ModelConfig ReadModelConfig(TRITONBACKEND_Model* model) {
  TRITONSERVER_Message* message = nullptr;
  Check(TRITONBACKEND_ModelConfig(model, 1, &message), "reading the model configuration");
  std::unique_ptr<TRITONSERVER_Message, void (*)(TRITONSERVER_Message*)> owned(
      message, [](TRITONSERVER_Message* m) {
        if (TRITONSERVER_Error* err = TRITONSERVER_MessageDelete(m)) TRITONSERVER_ErrorDelete(err);
      });
  const char* base = nullptr;
  size_t size = 0;
  Check(TRITONSERVER_MessageSerializeToJson(message, &base, &size), "serializing the model configuration");

  return ModelConfig::FromJson(base, base + size);
}

std::string ModelVersionDirectory(TRITONBACKEND_Model* model) {
  TRITONBACKEND_ArtifactType type;
  const char* location = nullptr;
  Check(TRITONBACKEND_ModelRepository(model, &type, &location), "locating the model repository");
  if (type != TRITONBACKEND_ARTIFACT_FILESYSTEM) {
    throw BackendError("model artifacts are not on a file system", TRITONSERVER_ERROR_UNSUPPORTED);
  }
  uint64_t version = 0;
  Check(TRITONBACKEND_ModelVersion(model, &version), "reading the model version");
  return std::string(location) + "/" + std::to_string(version);
}

}  // namespace triton_studio::glue
