#!/usr/bin/env bash
# Packs the 2026 chat samples (Llama-3.1, Qwen3: chat template and tokenizer native, served by the
# orchestrator) for a lent GPU machine that has none of the project's tools. The TensorRT-LLM step
# is sim-llm on KIND_GPU (no TensorRT-LLM backend can be installed there); what is measured is the
# native steps, the orchestrator and Triton on that machine. bench/gpu/run.sh unpacks and runs it.
#
#   bash bench/gpu/pack.sh   → .cache/gpu-pack/ (node, tritonserver, CLI bundle, two built repositories)
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/lib/pack.sh
PACK=.cache/gpu-pack
SITE=.venv/lib/python3.11/site-packages
[[ -x $SITE/pytriton/tritonserver/bin/tritonserver ]] || { echo "pack: no tritonserver in .venv: run npm run setup" >&2; exit 1; }
rm -rf "$PACK" && mkdir -p "$PACK/work"
for sample in llama3.1-tensorrt-llm qwen3-tensorrt-llm; do
  dir=$PACK/work/$sample
  cp -r "samples/$sample" "$dir"
  node -e '
    const fs = require("fs"), f = process.argv[1], p = JSON.parse(fs.readFileSync(f, "utf8"));
    const m = p.steps.find((s) => s.name === "tensorrt_llm");
    m.backend = "sim_llm";
    m.instanceGroups = [{ count: 1, kind: "GPU" }];
    m.parameters = { ...m.parameters, prefill_us_per_token: 20, decode_us_per_step: 500 };
    fs.writeFileSync(f, JSON.stringify(p, null, 2));' "$dir/$sample.pipeline.json"
  node bin/triton-studio.js generate "$dir/$sample.pipeline.json" --out "$dir/repo" >/dev/null
  node bin/triton-studio.js build "$dir/repo" >/dev/null
done
npm run -s compile >/dev/null
pack_node "$PACK"
pack_tritonserver "$PACK" "$SITE"
tar -cJf "$PACK/work.tar.xz" -C "$PACK" work && rm -rf "$PACK/work"
# The CLI bundle and the files it reads beside itself (not the extension, the compiler or source maps).
tar -cJf "$PACK/cli.tar.xz" --exclude="*.map" --exclude=out/extension.js --exclude=out/webview --exclude=out/test --exclude=out/test-results \
  --exclude=out/tscompile.js --exclude=out/bench out
du -sh "$PACK"/*
