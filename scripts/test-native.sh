#!/usr/bin/env bash
# The C++ unit tests (GoogleTest) under ctest, as `npm test` runs them:
#   bash scripts/test-native.sh [RESULTS_DIR]     # writes RESULTS_DIR/ctest.xml (JUnit)
# Builds backends/ in build/backends (the tree generator/build reuses, so the integration tests
# that follow compile nothing again) with -DTS_TESTS=ON, holding the same lock generator/build
# takes, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=$(mkdir -p "${1:-out/test-results}" && cd "${1:-out/test-results}" && pwd)
BUILD=build/backends
JOBS=$(( $(nproc) < 2 ? $(nproc) : 2 ))

mkdir -p build
LOCK="$BUILD.lock"
until mkdir "$LOCK" 2>/dev/null; do
  owner=$(cat "$LOCK/pid" 2>/dev/null || true)
  if [[ -n "$owner" ]] && ! kill -0 "$owner" 2>/dev/null; then rm -rf "$LOCK"; continue; fi  # left by a dead build
  sleep 0.2
done
echo $$ >"$LOCK/pid"
trap 'rm -rf "$LOCK"' EXIT

cmake -S backends -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTS_TESTS=ON >/dev/null \
  || { echo "test-native: configuring backends/ failed (run 'npm run setup': it installs libgtest-dev)" >&2; exit 1; }
cmake --build "$BUILD" --parallel "$JOBS"
# perf's native engine (outside `all`: a user builds it on first use). Built here, the first
# integration test to measure with it does not spend its time budget compiling it (~50 s).
cmake --build "$BUILD" --parallel "$JOBS" --target ts-perf-driver
rm -rf "$LOCK"; trap - EXIT
ctest --test-dir "$BUILD" --output-on-failure --parallel "$JOBS" --no-tests=error --output-junit "$RESULTS/ctest.xml"
