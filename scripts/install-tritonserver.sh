#!/usr/bin/env bash
# Installs the real Triton server (nvidia-pytriton's tritonserver, Triton 2.51) from PyPI into a
# Python virtual environment: VENV (default .venv). Used by scripts/setup.sh for the checkout and
# by the VS Code extension's "Install Local Server" for its global storage. Idempotent: an
# environment that already holds this version is left as it is. Prints the binary's path last.
# pip reads its own environment: PIP_INDEX_URL (a mirror), PIP_FIND_LINKS + PIP_NO_INDEX (a folder
# of wheels, as the installed-extension tests use).
set -euo pipefail
VENV=${1:-.venv}
PYTRITON_VERSION=0.7.0
PYTHON=${TRITON_STUDIO_PYTHON:-python3.11}

say() { printf '[install-tritonserver] %s\n' "$*"; }
fail() { printf '[install-tritonserver] error: %s\n' "$*" >&2; exit 1; }

binary() { ls "$VENV"/lib/python3.*/site-packages/pytriton/tritonserver/bin/tritonserver 2>/dev/null | head -n 1; }

if [[ -x "$(binary)" ]] && "$VENV/bin/python" -c "import importlib.metadata as m; assert m.version('nvidia-pytriton') == '$PYTRITON_VERSION'" 2>/dev/null; then
  say "tritonserver (nvidia-pytriton $PYTRITON_VERSION) present"
else
  command -v "$PYTHON" >/dev/null \
    || fail "Python 3.11 is required for nvidia-pytriton's tritonserver ($PYTHON not found): install it (Debian/Ubuntu: sudo apt-get install python3.11 python3.11-venv)"
  say "installing tritonserver (nvidia-pytriton==$PYTRITON_VERSION) into $VENV — ~150 MB, once"
  [[ -d "$VENV" ]] || "$PYTHON" -m venv "$VENV" \
    || fail "could not create $VENV (Debian/Ubuntu: sudo apt-get install python3.11-venv)"
  "$VENV/bin/pip" install --progress-bar off --disable-pip-version-check "nvidia-pytriton==$PYTRITON_VERSION" \
    || fail "pip install nvidia-pytriton==$PYTRITON_VERSION failed (is PyPI reachable? retry when online)"
  [[ -x "$(binary)" ]] || fail "tritonserver binary missing after install under $VENV"
fi
binary
