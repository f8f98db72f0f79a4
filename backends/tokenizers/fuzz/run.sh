#!/usr/bin/env bash
# Builds the tokenizer libFuzzer targets (clang, ASan + UBSan by default) and runs each in turn.
#   npm run fuzz                       # each target FUZZ_SECONDS (default 600) seconds
#   FUZZ_SECONDS=60 npm run fuzz -- fuzz_encode fuzz_load
#   FUZZ_SANITIZERS=undefined npm run fuzz -- fuzz_split_scanners   # without ASan: see below
# ASan checks bytes, not pages, so under it the library copies a short text instead of loading the
# block past its end in place (src/past_end_reads.h); FUZZ_SANITIZERS=undefined fuzzes that path.
# Findings land in build/fuzz/findings/<target>/ (crash-*, leak-*). Each one found so far is kept
# in fuzz/regressions/<target>/, replayed here as a seed and by test/integration/tokenizers-robustness.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
SANITIZERS=${FUZZ_SANITIZERS:-address,undefined}
BUILD=build/fuzz
[[ $SANITIZERS == address,undefined ]] || BUILD=build/fuzz-${SANITIZERS//,/-}
SECONDS_EACH=${FUZZ_SECONDS:-600}
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(fuzz_encode fuzz_decode fuzz_incremental fuzz_load fuzz_components fuzz_precompiled fuzz_split_regex fuzz_split_scanners)

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (apt-get install clang libfuzzer-14-dev)" >&2; exit 1; }
node --import tsx scripts/assemble-tokenizers.ts >/dev/null

# Only the tokenizer library and the targets: a scratch project over backends/tokenizers.
mkdir -p "$BUILD/project"
cat > "$BUILD/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(ts_tokenizers_fuzz LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(TS_FUZZ ON)
add_subdirectory("$ROOT/backends/tokenizers" tokenizers)
CMAKE
CXX=clang++ cmake -S "$BUILD/project" -B "$BUILD/out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTS_FUZZ_SANITIZERS="$SANITIZERS" >/dev/null
cmake --build "$BUILD/out" -j2 --target "${TARGETS[@]}"

export TS_FUZZ_TOKENIZERS="$ROOT/.cache/tokenizers"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$t" findings="$BUILD/findings/$t"
  mkdir -p "$corpus" "$findings"
  seeds=()
  for d in seeds regressions; do
    [[ -d "$ROOT/backends/tokenizers/fuzz/$d/${t#fuzz_}" ]] && seeds+=("$ROOT/backends/tokenizers/fuzz/$d/${t#fuzz_}")
  done
  echo "fuzz: $t for ${SECONDS_EACH}s"
  start=$(date +%s)
  if ! "$BUILD/out/tokenizers/fuzz/$t" -max_total_time="$SECONDS_EACH" -timeout=20 -rss_limit_mb=4096 \
      -max_len=4096 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" \
      >"$BUILD/$t.log" 2>&1; then
    status=1
    echo "fuzz: $t FOUND A PROBLEM (see $BUILD/$t.log and $findings/)"
  fi
  echo "fuzz: $t ran $(( $(date +%s) - start ))s, $(grep -E '^stat::number_of_executed_units' "$BUILD/$t.log" | awk '{print $2}') executions"
done
exit $status
