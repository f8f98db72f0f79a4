#!/usr/bin/env bash
# Installs what building for and checking on another CPU architecture needs, idempotently, from
# Debian and PyPI only. Today: aarch64 (NVIDIA Grace: GH200, GB200, DGX Spark) on x86_64.
#   - the cross compiler (g++-aarch64-linux-gnu) and, through Debian multiarch, the arm64 builds of
#     the libraries the native steps link (packages marked `target` in backends/DEPENDENCIES.txt)
#   - qemu-user and the arm64 C/C++ runtime, so aarch64 binaries run here under emulation
#   - the aarch64 Triton 2.51 server (nvidia-pytriton 0.7.0's manylinux aarch64 wheel, sha256
#     pinned) unpacked into .cache/tritonserver-aarch64/, which `serve --arch aarch64` runs
#   - llama.cpp's prebuilt aarch64 libraries (npm @node-llama-cpp/linux-arm64, via fetch-llama.sh)
# Usage: scripts/install-cross.sh aarch64
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

say() { printf '\033[1m[cross]\033[0m %s\n' "$*"; }
fail() { printf '\033[31m[cross] error:\033[0m %s\n' "$*" >&2; exit 1; }

ARCH=${1:-}
[[ "$ARCH" == aarch64 ]] || fail "usage: scripts/install-cross.sh aarch64 (the only cross target so far; got '${ARCH}')"
[[ "$(uname -m)" == x86_64 ]] || fail "cross-building for $ARCH is set up from an x86_64 machine (this is $(uname -m)): build natively there"
DEB_ARCH=arm64
TRIPLE=aarch64-linux-gnu

WHEEL=nvidia_pytriton-0.7.0-py3-none-manylinux_2_35_aarch64.whl
WHEEL_SHA256=f99e07ee56fe065337453956afba17d2673e02ec6a632c3de26ce6e7b32a0898
SERVER_DIR=$ROOT/.cache/tritonserver-$ARCH

SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || fail "need root or sudo to install the cross toolchain"
  SUDO=sudo
fi

# --- Debian packages ------------------------------------------------------------------------------
if ! dpkg --print-foreign-architectures | grep -qx "$DEB_ARCH"; then
  say "enabling Debian multiarch for $DEB_ARCH"
  $SUDO dpkg --add-architecture "$DEB_ARCH"
  $SUDO apt-get update -qq || fail "apt-get update failed (is the Debian mirror reachable?)"
fi
packages=("g++-$TRIPLE" qemu-user "libc6:$DEB_ARCH" "libstdc++6:$DEB_ARCH" "zlib1g:$DEB_ARCH")
while read -r pkg tag _; do
  [[ "$tag" == target ]] && packages+=("$pkg:$DEB_ARCH")
done < <(grep -v '^\s*#' backends/DEPENDENCIES.txt)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null \
    || { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; } \
    || fail "apt-get install ${missing[*]} failed"
else
  say "cross toolchain and $DEB_ARCH libraries present"
fi

# --- llama.cpp's libraries for the target (the llama.cpp step links them) ------------------------
bash scripts/fetch-llama.sh "$ARCH" || fail "fetching llama.cpp's $ARCH libraries failed (see above)"

# --- the aarch64 Triton server ---------------------------------------------------------------------
BIN=$SERVER_DIR/pytriton/tritonserver/bin/tritonserver
if [[ -x "$BIN" && -f "$SERVER_DIR/.sha256" && "$(cat "$SERVER_DIR/.sha256")" == "$WHEEL_SHA256" ]]; then
  say "$ARCH tritonserver present ($SERVER_DIR)"
  exit 0
fi
command -v python3 >/dev/null || fail "python3 is needed to download the wheel (pip)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say "downloading the $ARCH tritonserver (nvidia-pytriton==0.7.0, $WHEEL, 54 MB)"
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux_2_35_aarch64 --python-version 3.11 -d "$tmp" nvidia-pytriton==0.7.0 \
  || fail "pip download of nvidia-pytriton==0.7.0 for $ARCH failed (is PyPI reachable?)"
[[ -f "$tmp/$WHEEL" ]] || fail "pip download did not produce $WHEEL"
echo "$WHEEL_SHA256  $tmp/$WHEEL" | sha256sum -c --quiet - \
  || fail "$WHEEL does not have the pinned sha256 $WHEEL_SHA256: refusing to unpack it"
rm -rf "$SERVER_DIR.tmp" && mkdir -p "$SERVER_DIR.tmp"
python3 - "$tmp/$WHEEL" "$SERVER_DIR.tmp" <<'PY' || fail "unpacking $WHEEL failed"
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.filename.startswith(("pytriton/tritonserver/", "nvidia_pytriton.libs/")):
            path = z.extract(info, out)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                import os
                os.chmod(path, mode & 0o755)
PY
echo "$WHEEL_SHA256" > "$SERVER_DIR.tmp/.sha256"
rm -rf "$SERVER_DIR" && mv "$SERVER_DIR.tmp" "$SERVER_DIR"
[[ -x "$BIN" ]] || fail "the unpacked wheel has no executable $BIN"
say "$ARCH tritonserver unpacked into $SERVER_DIR"
