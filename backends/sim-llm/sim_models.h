// The interfaces sim-llm can present. One library (backend "sim_llm") serves them all; the
// model's config.pbtxt says which one a model uses (see CreateModel in sim_llm.cc):
//   - token LLM (FasterTransformer / TensorRT-LLM): input_ids ... -> output_ids  (sim_llm.cc)
//   - text LLM (vLLM): text_input, stream, sampling_parameters -> text_output    (sim_text.cc)
//   - encoder (DistilBERT/BERT classifier, cross-encoder reranker, BGE/E5 embedder): input_ids,
//     attention_mask[, token_type_ids] -> logits or sentence_embedding              (sim_classifier.cc)
#pragma once

#include <memory>
#include <string>

#include "triton_studio/glue.h"

namespace triton_studio::sim_llm {

std::unique_ptr<glue::BackendModel> CreateTextModel(glue::ModelConfig config);
std::unique_ptr<glue::BackendModel> CreateClassifierModel(glue::ModelConfig config);

// Appends {"model", "inputs": {name: {"datatype", "shape", "data"}}} for the request to `path`.
void RecordRequest(const std::string& path, const std::string& model, TRITONBACKEND_Request* request);

}  // namespace triton_studio::sim_llm
