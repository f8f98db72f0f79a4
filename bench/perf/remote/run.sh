#!/usr/bin/env bash
# Runs bench/perf/vs-perf-analyzer.ts on a machine without the project's tools, from what
# bench/perf/remote/pack.sh packed into .cache/remote-bench/ (carried there with the checkout).
# Arguments go to the bench (--quick, --only, --engines, --repeat); --prebuilt is added.
#
#   bash bench/perf/remote/run.sh --quick --engines native
set -euo pipefail
cd "$(dirname "$0")/../../.."
source bench/lib/pack.sh
PACK=.cache/remote-bench
[[ -f $PACK/node.xz ]] || { echo "run: $PACK missing: run bench/perf/remote/pack.sh first" >&2; exit 1; }
if [[ ! -x $PACK/bin/node ]]; then # unpacked once; a second run goes straight to the bench
  mkdir -p .venv/lib/python3.11/site-packages
  unxz $PACK/tritonserver.tar.xz | tar -x -C .venv/lib/python3.11/site-packages
  unxz $PACK/bench.tar.xz | tar -x
  # perf_analyzer's libcudart and libb64 sit where the bench adds them to its LD_LIBRARY_PATH.
  PA_LIBS=.cache/perf-analyzer-venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib
  mkdir -p $PA_LIBS && cp $PACK/lib/libcudart.so.12 $PACK/lib/libb64.so.0d $PA_LIBS/
  mkdir -p "$PACK/bin" && unxz $PACK/node.xz >"$PACK/bin/node.part" && chmod +x "$PACK/bin/node.part"
  mv "$PACK/bin/node.part" "$PACK/bin/node"
fi
export PATH="$PWD/$PACK/bin:$PATH" LD_LIBRARY_PATH="$PWD/$PACK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TRITON_STUDIO_PERF_DRIVER="$PWD/build/backends/perf-driver/ts-perf-driver"
echo "run: $(nproc) cores, $(uname -r), node $(node --version)"
exec node out/bench/vs-perf-analyzer.js --prebuilt "$@"
