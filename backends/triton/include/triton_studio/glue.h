// Thin C++ layer over the TRITONBACKEND C API shared by every Triton Studio backend (the
// generated tokenize/detokenize steps, the orchestrator and sim-llm), split the way Triton's
// own backend utilities are: errors, data types, model config, reading inputs, building outputs
// and responses, execute, entry points. Include this for all of them.
#pragma once

#include "triton_studio/glue/data_types.h"
#include "triton_studio/glue/entry_points.h"
#include "triton_studio/glue/errors.h"
#include "triton_studio/glue/execute.h"
#include "triton_studio/glue/inputs.h"
#include "triton_studio/glue/model_config.h"
#include "triton_studio/glue/outputs.h"
#include "triton_studio/glue/word_lists.h"
