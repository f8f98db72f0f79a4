#!/usr/bin/env bash
# Builds the chat-template libFuzzer target (clang, ASan + UBSan) and runs it, seeded with the
# template corpus and the models' templates.
#   bash backends/chat-template/fuzz/run.sh              # FUZZ_SECONDS (default 600) seconds
# Findings land in build/fuzz-chat/findings/ (crash-*, leak-*, timeout-*).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
BUILD=build/fuzz-chat
SECONDS_EACH=${FUZZ_SECONDS:-600}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (apt-get install clang libfuzzer-14-dev)" >&2; exit 1; }

mkdir -p "$BUILD/project" "$BUILD/findings" "$BUILD/corpus"
cat > "$BUILD/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(ts_chat_template_fuzz LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g)
add_subdirectory("$ROOT/backends/tokenizers" tokenizers)
add_subdirectory("$ROOT/backends/chat-template" chat-template)
add_executable(fuzz_render "$ROOT/backends/chat-template/fuzz/fuzz_render.cc")
target_link_libraries(fuzz_render PRIVATE ts_chat_template)
target_compile_options(fuzz_render PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_options(fuzz_render PRIVATE -fsanitize=fuzzer,address,undefined)
CMAKE
CC=clang CXX=clang++ cmake -S "$BUILD/project" -B "$BUILD/out" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD/out" -j2 --target fuzz_render

SEEDS="$BUILD/seeds"
mkdir -p "$SEEDS"
cp test/fixtures/chat-templates/corpus/*.jinja "$SEEDS/"
for cfg in .cache/tokenizers/*/tokenizer_config.json; do
  node -e 'const c=require(process.argv[1]); if (typeof c.chat_template==="string") process.stdout.write(c.chat_template)' "$ROOT/$cfg" \
    > "$SEEDS/$(basename "$(dirname "$cfg")").jinja" || true
done
"$BUILD/out/fuzz_render" "$BUILD/corpus" "$SEEDS" -max_total_time="$SECONDS_EACH" -max_len=8192 -timeout=10 \
  -dict="$ROOT/backends/chat-template/fuzz/jinja.dict" -artifact_prefix="$BUILD/findings/" -print_final_stats=1
