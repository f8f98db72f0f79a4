#!/usr/bin/env bash
# The main job on the embedded default: generate the CPU sample (GPT-2 tokenizer -> sim-llm ->
# detokenizer), build its native backends, start the local Triton server, deploy, send a prompt,
# print the answer and a short latency summary, stop the server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node bin/triton-studio.js run samples/gpt2-sim/gpt2-sim.pipeline.json "$@"
