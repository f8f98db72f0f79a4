#!/usr/bin/env bash
# Packs bench/perf/vs-perf-analyzer.ts for a machine that has none of the project's tools (no Node,
# npm, compiler, tritonserver or perf_analyzer): a quiet load machine, or a lent GPU server. Run
# here, after `npm run setup` and perf_analyzer's bench venv (the bench's header says how);
# bench/perf/remote/run.sh unpacks it there and runs the bench.
#
#   bash bench/perf/remote/pack.sh        → .cache/remote-bench/ (≈ 60 MB, xz)
#
# What travels: this Node binary; tritonserver from nvidia-pytriton with the libraries it links
# (not the Python backend's); perf_analyzer with libcudart and libb64; the three bench models'
# repositories, generated and built here (--prepare); ts-perf-driver with libnghttp2 and
# libprotobuf; the CLI bundle and the bench bundled the same way. Same x86-64 glibc-2.36 builds:
# a newer distribution runs them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source bench/lib/pack.sh
PACK=.cache/remote-bench
SITE=.venv/lib/python3.11/site-packages
PA_VENV=.cache/perf-analyzer-venv
CUDART=$PA_VENV/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12
fail() { echo "pack: $*" >&2; exit 1; }
[[ -x $SITE/pytriton/tritonserver/bin/tritonserver ]] || fail "no tritonserver in .venv: run npm run setup"
[[ -x $PA_VENV/bin/perf_analyzer && -f $CUDART ]] || fail "no perf_analyzer: see bench/perf/vs-perf-analyzer.ts's header"

rm -rf "$PACK" && mkdir -p "$PACK/lib"
echo "pack: generating and building the bench's models and the driver"
node --import tsx bench/perf/vs-perf-analyzer.ts --prepare --engines native
npm run -s compile >/dev/null
npx esbuild bench/perf/vs-perf-analyzer.ts --bundle --platform=node --format=cjs --target=node20 \
  --external:ts-morph --external:typescript --external:vscode --main-fields=module,main --log-level=warning \
  --outfile=out/bench/vs-perf-analyzer.js
# As scripts/bundle.mjs builds the CLI (ESM entry points first: jsonc-parser's UMD build hides its
# requires). Modules that read files beside themselves (scripts/bundle.mjs's ASSETS_BESIDE_MODULE) find them there.
cp generator/pbtxt/*.proto generator/codegen/cpp/*.hbs out/bench/

echo "pack: compressing"
pack_node "$PACK"
pack_tritonserver "$PACK" "$SITE"
cp -L /lib/x86_64-linux-gnu/libb64.so.0d "$CUDART" /lib/x86_64-linux-gnu/libnghttp2.so.14 \
  /lib/x86_64-linux-gnu/libprotobuf.so.32 "$PACK/lib/"
tar -cJf "$PACK/bench.tar.xz" $PA_VENV/bin/perf_analyzer build/backends/perf-driver/ts-perf-driver \
  .cache/bench/perf-vs-pa/*/repo out/cli.js out/*.proto out/*.hbs out/chart.umd.min.js out/webview/reportPage.js out/bench \
  "$PACK/lib"
rm -rf "$PACK/lib"
du -sh "$PACK"/*
