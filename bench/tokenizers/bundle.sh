#!/usr/bin/env bash
# The tokenizer benchmark as a bundle for a quiet machine that has no network, no Node and no
# compiler (bench:tokenizers needs all three; on the shared 2-core box wall clock is noise):
#   bash bench/tokenizers/bundle.sh pack [DIR]   # here: DIR (default build/bench-bundle) gets a
#                                                # static ts-tokenize-bench, the Python peers' wheels,
#                                                # the tokenizer.json files and the corpus (the
#                                                # wheels through $BENCH_VENV's pip, default .cache/bench-venv)
#   bash bench/tokenizers/bundle.sh run DIR OUT [SECONDS]   # there: one JSON line per
#                                                # (tokenizer, implementation, round) in OUT/results.jsonl
# Environment for "run": BUNDLE_TOKENIZERS (below), BUNDLE_PEERS (default: fastokens fastokens-loop
# hf kitoken, and tiktoken for GPT-2), BUNDLE_ROUNDS (default 1: each round runs every
# implementation once more, in turn, so a slow spell falls on all), BUNDLE_JOIN=N (every N corpus
# texts joined by a newline into one, as run.ts --join: the per-byte work stays, the per-call
# costs are divided by N), BUNDLE_SEQUENTIAL=1 (below).
# "run" pins every process to one core (taskset): each tokenizer gets a core of its own and runs
# its implementations there one after another, each keeping its fastest pass (py_bench.py and
# ts-tokenize-bench both do), so the numbers are single-thread and side by side. Peers as in run.ts, minus HF's npm binding (no Node there).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
read -r -a TOKENIZERS <<<"${BUNDLE_TOKENIZERS:-gpt2 codegen-350M-mono llama-2 mistral-7b bert-base-uncased llama-3 llama-3.1 qwen3 deepseek-v3 gpt-oss gemma-3 smollm2-135m-instruct}"
# The peers and what they import at run time (tiktoken needs regex); nothing else is unpacked there.
PEERS="tokenizers==0.23.3 tiktoken==0.14.0 kitoken==0.11.1 fastokens==0.3.5 regex==2026.9.29"

pack() {
  local dir=${1:-build/bench-bundle}
  mkdir -p "$dir/tokenizers" "$dir/wheels"
  # Static C++ runtime: the quiet machine's libstdc++ may be older than the compiler's.
  cmake -S backends -B build/bench-static -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
  cmake --build build/bench-static -j2 --target ts-tokenize-bench >/dev/null
  cp build/bench-static/tools/ts-tokenize-bench "$dir/"
  cp bench/tokenizers/py_bench.py "$dir/"
  cp .cache/corpus/tokenizers.jsonl "$dir/corpus.jsonl"
  for t in "${TOKENIZERS[@]}"; do
    mkdir -p "$dir/tokenizers/$t" && cp ".cache/tokenizers/$t/tokenizer.json" "$dir/tokenizers/$t/"
  done
  tar -C "$dir" -czf "$dir/tokenizers.tgz" tokenizers && rm -r "$dir/tokenizers"
  for v in 3.10 3.11 3.12; do
    "${BENCH_VENV:-.cache/bench-venv}/bin/pip" download -q --only-binary=:all: --python-version "$v" --platform manylinux_2_28_x86_64 \
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --no-deps -d "$dir/wheels" $PEERS
  done
  du -sh "$dir"
}

run() {
  local dir=$1 out=$2 seconds=${3:-3}
  mkdir -p "$out" && local work && work=$(mktemp -d)
  tar -C "$work" -xzf "$dir/tokenizers.tgz"
  local corpus=$dir/corpus.jsonl join=${BUNDLE_JOIN:-1}
  if ((join > 1)); then
    corpus=$work/corpus.join$join.jsonl
    python3 - "$dir/corpus.jsonl" "$join" "$corpus" <<'PY'
import json, sys
texts = [e['text'] for e in map(json.loads, open(sys.argv[1], encoding='utf-8')) if 'text' in e]
n = int(sys.argv[2])
with open(sys.argv[3], 'w', encoding='utf-8') as f:
    for i in range(0, len(texts), n):
        f.write(json.dumps({'source': 'all', 'text': '\n'.join(texts[i:i + n])}) + '\n')
PY
  fi
  # The wheels unpacked into one folder on PYTHONPATH (no pip or venv needed there).
  local tag && tag=$(python3 -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  mkdir -p "$work/site"
  for w in "$dir"/wheels/*.whl; do
    case $w in *-cp3[0-9]*-cp3[0-9]*-*) [[ $w == *"-$tag-$tag-"* ]] || continue ;; esac
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$work/site"
  done
  export PYTHONPATH=$work/site RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false
  {
    echo "{\"machine\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\", \"cores\": $(nproc), \"python\": \"$tag\", \"load\": \"$(cut -d' ' -f1-3 /proc/loadavg)\", \"join\": $join}"
  } >"$out/machine.json"
  # One tokenizer per core (cores 2.., leaving 0 and 1 to the system), its implementations one
  # after another on that core; on a machine of under 8 cores, or with BUNDLE_SEQUENTIAL=1, one
  # tokenizer at a time (no neighbours sharing the cache and memory bandwidth).
  local cores && cores=$(nproc) && local core=$((cores > 2 ? 2 : 0))
  for t in "${TOKENIZERS[@]}"; do
    if ((cores >= 8)) && [[ -z ${BUNDLE_SEQUENTIAL:-} ]]; then
      run_tokenizer "$dir" "$work/tokenizers/$t/tokenizer.json" "$t" "$core" "$seconds" "$out" "$corpus" &
      core=$((core + 1 < cores ? core + 1 : 2))
    else
      run_tokenizer "$dir" "$work/tokenizers/$t/tokenizer.json" "$t" "$core" "$seconds" "$out" "$corpus"
    fi
  done
  wait
  cat "$out"/*.part >"$out/results.jsonl" && rm "$out"/*.part
}

run_tokenizer() {
  local dir=$1 file=$2 t=$3 core=$4 seconds=$5 out=$6 corpus=$7 line round impl
  local peers=${BUNDLE_PEERS:-fastokens fastokens-loop hf kitoken tiktoken}
  [[ $t == gpt2 ]] || peers=${peers//tiktoken/}  # tiktoken's pattern is GPT-2's
  : >"$out/$t.part"
  for round in $(seq "${BUNDLE_ROUNDS:-1}"); do
    for impl in triton-studio $peers; do
      if [[ $impl == triton-studio ]]; then
        line=$(taskset -c "$core" "$dir/ts-tokenize-bench" --tokenizer "$file" --corpus "$corpus" \
          --seconds "$seconds" 2>>"$out/$t-native.err" | tail -1) || true
      else
        line=$(taskset -c "$core" python3 "$dir/py_bench.py" "$impl" "$file" "$corpus" "$seconds" \
          2>>"$out/$t-$impl.err" | tail -1) || true
      fi
      [[ $line == \{* ]] || line=null
      echo "{\"tokenizer\": \"$t\", \"implementation\": \"$impl\", \"round\": $round, \"core\": $core, \"result\": $line}" >>"$out/$t.part"
    done
  done
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 pack [DIR] | run DIR OUT [SECONDS]" >&2; exit 2 ;;
esac
