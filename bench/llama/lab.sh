#!/usr/bin/env bash
# The latency lab on the real model: SmolLM2-135M-Instruct (samples/smollm2-llama-cpp) behind the
# orchestrator on the local tritonserver, measured by `triton-studio perf` (TTFT, ITL, throughput):
#   1. a concurrency sweep with in-flight batching (the sample as it ships);
#   2. the batching comparison: the same mixed workload (16-token prompts, 4-28 output tokens)
#      at one concurrency against the llama.cpp step's scheduling modes none / dynamic / inflight.
# Usage: bash bench/llama/lab.sh [OUT_DIR]   (short settings; writes one JSON report per run)
# Needs `npm run setup` (llama.cpp and the model) first. Prints the exact commands it runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$(mkdir -p "${1:-out/bench/llama}" && cd "${1:-out/bench/llama}" && pwd)
CLI="node $ROOT/bin/triton-studio.js"
TOKENIZER=$ROOT/.cache/tokenizers/smollm2-135m-instruct/tokenizer.json
GGUF=$ROOT/.cache/llama/models/SmolLM2-135M-Instruct.Q4_1.gguf
REQUESTS=${LAB_REQUESTS:-12}
SWEEP=${LAB_SWEEP:-1,2,4}
STUDY_CONCURRENCY=${LAB_STUDY_CONCURRENCY:-4}
THREADS=${LAB_THREADS:-1}
[[ -f "$GGUF" && -f "$TOKENIZER" ]] || { echo "lab: run npm run setup first (model or tokenizer missing)" >&2; exit 1; }

run() { echo "+ $*" >&2; "$@"; }

# One variant of the sample: the llama step's scheduling mode, the GGUF by absolute path.
variant() {
  local mode=$1 dir=$OUT/$1
  mkdir -p "$dir"
  node -e '
    const [src, out, gguf, mode, threads] = process.argv.slice(1);
    const p = JSON.parse(require("fs").readFileSync(src, "utf8"));
    delete p.$schema;
    const llama = p.steps.find((s) => s.name === "llama");
    llama.files = [gguf];
    llama.parameters = { ...llama.parameters, scheduling: mode, n_threads: threads };
    require("fs").writeFileSync(out, JSON.stringify(p, null, 2));
  ' "$ROOT/samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json" "$dir/smollm2.pipeline.json" "$GGUF" "$mode" "$THREADS"
  run $CLI generate "$dir/smollm2.pipeline.json" --out "$dir/repo" >/dev/null
  run $CLI build "$dir/repo" >/dev/null
}

# Serves a repository in the background (every model loaded), runs perf, stops the server.
measure() {
  local mode=$1 concurrency=$2 label=$3 dir=$OUT/$1
  local http=$((18000 + RANDOM % 1000)) grpc=$((19000 + RANDOM % 1000)) metrics
  metrics=$((20000 + RANDOM % 1000))
  $CLI serve "$dir/repo" --http-port "$http" --grpc-port "$grpc" --metrics-port "$metrics" >"$dir/server.log" 2>&1 &
  local server=$!
  trap 'kill $server 2>/dev/null || true' RETURN
  # serve loads every model of the repository; wait until the orchestrator is ready.
  for _ in $(seq 180); do curl -sf "127.0.0.1:$http/v2/models/smollm2/ready" >/dev/null && break; sleep 1; done
  curl -sf "127.0.0.1:$http/v2/models/smollm2/ready" >/dev/null || { echo "lab: server not ready, see $dir/server.log" >&2; exit 1; }
  run $CLI perf --url "127.0.0.1:$grpc" --model smollm2 --concurrency "$concurrency" --requests "$REQUESTS" \
    --warmup 2 --stream --tokenizer "$TOKENIZER" --synthetic-input-tokens-mean 16 \
    --output-tokens-mean 16 --output-tokens-stddev 6 --seed 1 --num-dataset-entries 20 \
    --metrics-url "http://127.0.0.1:$metrics/metrics" --export "$OUT/$label.json"
}

echo "lab: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start" >&2
variant inflight
measure inflight "$SWEEP" sweep-inflight
for mode in none dynamic; do variant "$mode"; done
for mode in none dynamic inflight; do measure "$mode" "$STUDY_CONCURRENCY" "study-$mode"; done
echo "lab: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >&2
