#!/usr/bin/env bash
# The whole test suite, as CI runs it: setup (idempotent), lint + typecheck, bundle, C++ unit
# tests (GoogleTest under ctest), unit tests, integration tests against the real tritonserver and real compiled backends, and the
# extension-host tests in real VS Code (code-server + Chromium). Ends with one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=out/test-results
rm -rf "$RESULTS" && mkdir -p "$RESULTS"

# Each stage's header says when it started ($SECONDS: since this script began), so a log shows
# where CI's time goes.
step() { printf '\n\033[1m== %s ==\033[0m (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

step "setup"
bash scripts/setup.sh --tests

# Every CMake build of the run (the backends, each test's step libraries, the cross builds) compiles
# through ccache, which setup just installed: the sample's steps compile once, not in every test
# that builds them into its own folder. Paths under the checkout are hashed relative to it. The
# sloppiness is what ccache needs to cache files compiled with a precompiled header (backends/).
command -v ccache >/dev/null || { echo "test.sh: ccache is missing after setup" >&2; exit 1; }
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$PWD \
  CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime

step "lint, format, typecheck"
npm run -s lint

step "bundle"
npm run -s compile

# Each test stage's exit code goes to exits.tsv: the summary names a stage that failed with no
# failed test (vitest does so on an error outside a test), instead of ending green-looking and red.
exited() { printf '%s\t%s\n' "$1" "$2" >>"$RESULTS/exits.tsv"; }
# vitest's JSON report, and runReporter's record of flaky tests and errors outside tests, per stage.
vitest_reports() {
  echo --reporter=json "--outputFile.json=$RESULTS/$1.json" --reporter=./test/runReporter.mts
}

step "C++ unit tests (GoogleTest under ctest)"
code=0; bash scripts/test-native.sh "$RESULTS" || code=$?; exited ctest $code

# The CPU lane: integration files that need no quiet machine. The tokenizer exactness suite
# (test/integration/tokenizers-*: the native library against HF on the whole corpus and on every
# code point), the CLI and chat-template files that run a native tool, and the aarch64 files (a
# cross build, and tritonserver under qemu-user, with generous timeouts and no timing bounds). It
# starts as soon as the native tools are built and runs at a lower priority beside the unit tests
# and the server lane, which leave part of the 2 cores idle: their timing bounds keep the CPU when
# both want it. Its log follows the server lane's.
CPU_LANE=(
  test/integration/tokenizers-
  test/integration/tokenizer-gguf.test.ts
  test/integration/tokenizer-native-check.test.ts
  test/integration/cli-tokenize-jsonl.test.ts
  test/integration/cli-generate.test.ts
  test/integration/cli-usage.test.ts
  test/integration/cli-validate.test.ts
  test/integration/render-chat.test.ts
  test/integration/chat-preview.test.ts
  test/integration/chat-renderer.test.ts
  test/integration/chat-template-diagnostics.test.ts
  test/integration/library-check.test.ts
  test/integration/tscompile-differential.test.ts
  test/integration/aarch64-
)
step "integration tests: the CPU lane starts (beside the unit tests and the server lane)"
# vitest selects files by path prefix; the server lane excludes the same ones by glob.
cpu_lane_excludes=()
for f in "${CPU_LANE[@]}"; do cpu_lane_excludes+=(--exclude "$f$([[ $f == *.test.ts ]] || echo '*.test.ts')"); done
TS_RUN_OUT="$RESULTS/integration-cpu.run.json" nice -n 10 npx vitest run --project integration \
  "${CPU_LANE[@]}" --reporter=default $(vitest_reports integration-cpu) \
  >"$RESULTS/integration-cpu.log" 2>&1 &
cpu_lane=$!
trap 'kill "$cpu_lane" 2>/dev/null || true' EXIT  # never left running past this script

step "unit tests"
code=0
TS_RUN_OUT="$RESULTS/unit.run.json" npx vitest run --project unit --reporter=default $(vitest_reports unit) || code=$?
exited unit $code

step "integration tests: the server lane (real tritonserver, real backends)"
# A failed server test runs once more (a shared 2-core box can stall a real server past a timing
# bound); the summary names every test that needed it. The CPU lane has no retry: its tests have
# no timing bounds.
code=0
TS_RUN_OUT="$RESULTS/integration.run.json" npx vitest run --project integration \
  "${cpu_lane_excludes[@]}" --retry=1 --reporter=default $(vitest_reports integration) || code=$?
exited integration $code

step "integration tests: the CPU lane (ran beside the stages above)"
code=0; wait "$cpu_lane" || code=$?; exited integration-cpu $code
trap - EXIT
cat "$RESULTS/integration-cpu.log"

# Alone: with the CPU lane beside them the extension tests took 554 s instead of 311 (stop 48):
# the workbench waits on many short wake-ups, and each finds a core busy.
step "extension tests (real VS Code)"
code=0; npm run -s test:vscode || code=$?; exited vscode $code

step "summary"
node scripts/test-summary.mjs "$RESULTS"
