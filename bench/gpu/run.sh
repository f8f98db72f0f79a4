#!/usr/bin/env bash
# On the lent GPU machine: unpacks what bench/gpu/pack.sh packed, serves each sample's repository
# with the real tritonserver, sends prompts and measures a concurrency sweep with the project's CLI
# (bin/triton-studio.js: without tsx there, it runs the bundle out/cli.js, which by itself only exports).
#   bash bench/gpu/run.sh [OUT_DIR]
# The pack and the working tree are over a lent machine's 64 MiB per call: carry tritonserver.tar.xz,
# work.tar.xz and cli.tar.xz in one call, then node.xz with this run on the same warm machine.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/lib/pack.sh
PACK=.cache/gpu-pack
OUT=${1:-${OUT:-/tmp/gpu-out}}
mkdir -p "$OUT" .venv/lib/python3.11/site-packages "$PACK/bin"
unxz $PACK/tritonserver.tar.xz | tar -x -C .venv/lib/python3.11/site-packages
unxz $PACK/work.tar.xz | tar -x -C $PACK
unxz $PACK/cli.tar.xz | tar -x
unxz $PACK/node.xz >"$PACK/bin/node" && chmod +x "$PACK/bin/node"
export PATH="$PWD/$PACK/bin:$PATH"
{ echo "cores $(nproc); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"; } | tee "$OUT/machine.txt"
# A field of the JSON that `serve --json` wrote to $1 (log lines may follow it).
served() { node -e 'const t=require("fs").readFileSync(process.argv[1],"utf8");console.log(JSON.parse(t.slice(0,t.lastIndexOf("}")+1))[process.argv[2]])' "$1" "$2"; }
for sample in llama3.1-tensorrt-llm qwen3-tensorrt-llm; do
  repo=$PACK/work/$sample/repo
  model=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).name)' "$PACK/work/$sample/$sample.pipeline.json")
  node bin/triton-studio.js serve "$repo" --json >"$OUT/$sample.serve.json" 2>"$OUT/$sample.serve.err" &
  pid=$!
  for _ in $(seq 120); do grep -q grpc "$OUT/$sample.serve.json" 2>/dev/null && break; sleep 1; done
  url=$(served "$OUT/$sample.serve.json" grpcUrl)
  echo "== $sample ($model) at $url" | tee -a "$OUT/summary.txt"
  node bin/triton-studio.js prompt --url "$url" --model "$model" --max-tokens 16 "The capital of France is" 2>&1 | tee -a "$OUT/summary.txt"
  node bin/triton-studio.js perf measure --engine node --url "$url" --model "$model" --stream --max-tokens 32 --concurrency 1,8,32 \
    --requests 200 --warmup 10 --export "$OUT/$sample.perf.json" 2>&1 | tee -a "$OUT/summary.txt"
  log=$(served "$OUT/$sample.serve.json" logFile)
  cp "$log" "$OUT/$sample.tritonserver.log" 2>/dev/null || true
  kill -INT $pid; wait $pid
done
