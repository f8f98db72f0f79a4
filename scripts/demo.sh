#!/usr/bin/env bash
# The main job on the embedded default: generate the CPU sample (SmolLM2-135M-Instruct: native
# tokenizer imported from its GGUF -> llama.cpp with in-flight batching -> native streaming
# detokenizer, behind the orchestrator), build its native backends, start the local Triton server,
# deploy, stream a real answer, print it and a short latency summary, stop the server.
# Options after `npm run demo --` override these (e.g. --prompt "Water is made of").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node bin/triton-studio.js run samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json \
  --prompt "The capital of France is" --max-tokens 24 --stream --requests 6 "$@"
